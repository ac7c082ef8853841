#' Chunked data from Parquet files
#'
#' Describes Parquet files, or folders of them, as chunked data (see
#' [chunked()]): a fit or a prediction reads one chunk at a time. With
#' \pkg{arrow}, a chunk is one row group of a file (read with
#' `ParquetFileReader$ReadRowGroup()`), so that even one large file is read
#' in parts; with \pkg{nanoparquet}, a chunk is one file (read with
#' [nanoparquet::read_parquet()]), so a large data set is best a folder of
#' files (as most tools write it). Only the files' metadata is read when the
#' object is made, to count the chunks.
#'
#' Columns are matched as in [chunked()]: `y` names the response, `weights`
#' the sample weights, and `x` the predictors (all other columns by
#' default); only these columns are read when `x` is given. Factor and
#' string columns hold class labels; 64-bit integers are read as doubles.
#'
#' Futures (see "Processing chunks in parallel" in [chunked()]) read their
#' chunks by path: the files must be readable where they run, with the
#' reader's package installed there.
#'
#' @param path Paths of Parquet files, or of folders whose `.parquet` files
#'   (in subfolders too, in sorted order) are read.
#' @param x The names of the predictor columns, or `NULL` for all columns but
#'   `y` and `weights`.
#' @param y The name of the response column, or `NULL` when the files hold
#'   predictors only (for prediction).
#' @param weights The name of the column of sample weights, or `NULL` for
#'   none.
#' @param reader `"nanoparquet"` (one file a chunk), `"arrow"` (one row
#'   group a chunk), or `"auto"`: \pkg{nanoparquet} when it is installed,
#'   else \pkg{arrow}.
#' @return An object of class `kitchen_chunked`, for [krr_fit()] and
#'   [predict()][predict.kitchen_krr].
#' @seealso [chunked()] for lists, functions, CSV and RDS files,
#'   [chunked_db()] for databases, and `vignette("scaling-out")`.
#' @export
#' @examplesIf requireNamespace("nanoparquet", quietly = TRUE)
#' set.seed(1)
#' dir <- file.path(tempdir(), "points")
#' dir.create(dir)
#' for (i in 1:4) {
#'   rows <- data.frame(a = runif(500, -3, 3), b = runif(500, -3, 3))
#'   rows$y <- sin(rows$a) * cos(rows$b) + rnorm(500, sd = 0.1)
#'   nanoparquet::write_parquet(rows, file.path(dir, sprintf("part-%d.parquet", i)))
#' }
#' data <- chunked_parquet(dir, y = "y")
#' data
#' map <- rff(data, 200, sigma = 1, seed = 1)
#' krr_fit(data, map, lambda = 0.01, n_threads = 2)
#' unlink(dir, recursive = TRUE)
chunked_parquet <- function(path, x = NULL, y = NULL, weights = NULL,
                            reader = c("auto", "nanoparquet", "arrow")) {
  reader <- parquet_reader(reader)
  files <- parquet_files(path)
  check_column_args(x, y, weights)
  row_groups <- parquet_row_groups(files, reader)
  if (attr(row_groups, "rows") == 0) {
    abort_arg("{.arg path} holds no rows: {cli::qty(length(files))}{?its file has/all its files have} none.")
  }
  structure(list(kind = "parquet", source = files, reader = reader, row_groups = row_groups,
                 x = x, y = y, weights = weights),
            class = "kitchen_chunked")
}

# The reader package: the one asked for, which must be installed.
parquet_reader <- function(reader, call = rlang::caller_env()) {
  reader <- match_choice(reader, c("auto", "nanoparquet", "arrow"), call = call)
  if (reader == "auto") {
    for (package in c("nanoparquet", "arrow")) {
      if (requireNamespace(package, quietly = TRUE)) return(package)
    }
    abort_arg(c("Reading Parquet files needs the {.pkg nanoparquet} or the {.pkg arrow} package.",
                i = "Install one, for example with {.code install.packages(\"nanoparquet\")}."),
              call = call)
  }
  rlang::check_installed(reader, "to read Parquet files.", call = call)
  reader
}

# The files named, folders replaced by the .parquet files they hold.
parquet_files <- function(path, call = rlang::caller_env()) {
  if (!is.character(path) || length(path) < 1 || anyNA(path) || any(!nzchar(path))) {
    abort_arg("{.arg path} must be one or more paths of Parquet files or folders, not {.obj_type_friendly {path}}.",
              call = call)
  }
  missing <- path[!file.exists(path)]
  if (length(missing)) {
    abort_arg(c("{.arg path} must name existing files or folders.", x = "Not found: {.file {missing}}."),
              call = call)
  }
  files <- unlist(lapply(path, function(p) {
    if (!dir.exists(p)) return(p)
    found <- sort(list.files(p, pattern = "\\.parquet$", recursive = TRUE, full.names = TRUE,
                             ignore.case = TRUE))
    if (!length(found)) {
      abort_arg("{.arg path} names a folder with no {.file .parquet} files: {.file {p}}.", call = call)
    }
    found
  }))
  files
}

# One row per chunk: the file and its row group (0-based; NA for the whole
# file), with the total number of rows as attribute "rows". A file without
# rows is one chunk of none (see chunked(): it keeps its number, so the
# files after it keep their CV folds whatever the reader).
parquet_row_groups <- function(files, reader, call = rlang::caller_env()) {
  parts <- lapply(files, function(file) {
    tryCatch(parquet_file_groups(file, reader), error = function(e) {
      abort_arg("{.arg path} must hold Parquet files; {.file {file}} could not be read as one.",
                parent = e, call = call)
    })
  })
  groups <- do.call(rbind, parts)
  attr(groups, "rows") <- sum(vapply(parts, attr, 0, "rows"))
  groups
}

parquet_file_groups <- function(file, reader) {
  if (reader == "nanoparquet") {
    rows <- as.numeric(nanoparquet::read_parquet_info(file)$num_rows)
    groups <- NA_integer_
  } else {
    pq <- arrow_file_reader()$create(file)
    rows <- as.numeric(pq$num_rows)
    groups <- if (rows > 0) seq_len(pq$num_row_groups) - 1L else NA_integer_
  }
  structure(data.frame(file = rep(file, length(groups)), group = groups), rows = rows)
}

# arrow is optional and not among the Suggests (its install downloads a C++
# library, which machines without internet cannot): found by name when
# installed.
arrow_file_reader <- function() getExportedValue("arrow", "ParquetFileReader")

# Chunk i (a file or one of its row groups), or NULL past the end.
read_parquet_chunk <- function(data, i) {
  if (i > nrow(data$row_groups)) return(NULL)
  part <- data$row_groups[i, ]
  columns <- if (!is.null(data$x)) c(data$x, data$y, data$weights)
  frame <- if (data$reader == "nanoparquet") {
    # Before 0.5.2, col_select could misplace missing values (its NEWS):
    # then all columns are read.
    if (utils::packageVersion("nanoparquet") < "0.5.2") columns <- NULL
    if (!is.null(columns)) {
      # Those the file has (the schema's top-level columns, with an R column
      # number): chunk_from_frame() names the others.
      schema <- nanoparquet::read_parquet_schema(part$file)
      columns <- intersect(columns, schema$name[!is.na(schema$r_col)])
    }
    nanoparquet::read_parquet(part$file, col_select = columns,
                              options = nanoparquet::parquet_options(class = "data.frame"))
  } else {
    file <- arrow_file_reader()$create(part$file)
    indices <- if (!is.null(columns)) match(columns, file$GetSchema()$names) - 1L
    if (anyNA(indices)) indices <- NULL  # chunk_from_frame() names what is missing
    as.data.frame(file$ReadRowGroup(part$group, column_indices = indices))
  }
  chunk_from_frame(frame, data$x, data$y, data$weights)
}

# Where chunk i comes from, for error messages.
parquet_chunk_where <- function(data, i) {
  if (i > nrow(data$row_groups)) return("")
  part <- data$row_groups[i, ]
  if (is.na(part$group)) sprintf(" (%s)", part$file) else
    sprintf(" (%s, row group %d)", part$file, part$group + 1L)
}

parquet_print_fields <- function(data) {
  n <- length(data$source)
  chunks <- nrow(data$row_groups)
  c(source = sprintf("%d Parquet file%s (%s%s), %s rows", n, if (n == 1) "" else "s",
                     basename(data$source[[1]]), if (n > 1) ", ..." else "",
                     format_count(attr(data$row_groups, "rows"))),
    reader = sprintf("%s, %d chunk%s (%s)", data$reader, chunks, if (chunks == 1) "" else "s",
                     if (data$reader == "arrow") "one a row group" else "one a file"),
    response = if (is.null(data$y)) "none" else sprintf("column \"%s\"", data$y),
    weights = if (!is.null(data$weights)) sprintf("column \"%s\"", data$weights),
    predictors = if (is.null(data$x)) "all other columns" else paste(data$x, collapse = ", "))
}
