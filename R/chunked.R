#' Data in chunks, for fitting and predicting out of core
#'
#' Describes a data set that is read one chunk at a time, so that
#' [krr_fit()] and [predict()][predict.kitchen_krr] never hold more than one
#' chunk (and one block of features) in memory. Nothing is read when the
#' object is made; each fit reads every chunk once per bandwidth candidate.
#'
#' A source is one of:
#' * a **list of chunks**, each a list with `x` (a numeric matrix or data
#'   frame) and `y` (a numeric vector or matrix, or a factor or character
#'   vector of class labels; it may be left out for prediction), and
#'   optionally `weights`, the sample weight of each row (see [krr_fit()]);
#' * a **function** `function(i)` returning chunk `i` (a list as above) for
#'   `i = 1, 2, ...`, and `NULL` past the last chunk. It is called again from
#'   `i = 1` for every pass over the data, so it must give the same chunks
#'   each time (for example by reading the `i`-th file, or rows of a
#'   database table by offset);
#' * a **list of data frames** (say `split(df, df$month)`), with `y`,
#'   `weights` and `x` naming columns as for files;
#' * a **character vector of file paths**, each file holding a data frame:
#'   read with `data.table::fread()` for `.csv` files when \pkg{data.table}
#'   is installed (several times faster), else with [utils::read.csv()]
#'   (always for `.csv.gz`; `options(kitchen.csv_reader = "read.csv")`
#'   forces it), with [readRDS()] for `.rds` files, or with `reader(path)`
#'   for any file.
#'   `y` names the response column, `weights` the column of sample weights
#'   if any, `x` the predictor columns (all other columns by default).
#'
#' Every chunk must have the same columns (matched by name when they have
#' names: then columns the map does not use are ignored, as by
#' [predict()]). For classification, the classes are the levels of factor
#' responses, combined over the chunks as [c()] combines factors (chunk 1's
#' levels, then those only later chunks have, in order of appearance; so a
#' chunk may lack a class, and classes that never occur are dropped, as
#' [droplevels()] would), or the sorted distinct values of character
#' responses (as [factor()] would make them, so a CSV response column needs
#' no conversion).
#'
#' A chunk of no rows (a file with a header alone, a query or a filter that
#' matched nothing) holds no data: fits pass it by (it keeps its number, so
#' the chunks after it keep their CV folds), and predictions give it none.
#'
#' A chunk that cannot be read, or that holds bad data (missing columns,
#' extra ones without names, NA, non-numeric predictors, a response of the
#' wrong kind), stops
#' the fit or the prediction with an error naming the chunk (its number and,
#' for files, its path); no partial result is returned.
#'
#' The feature map is built from the chunks ([rff()], [fastfood()] and
#' [rbin()] take chunked data, and so does [krr_fit()] with `features` a
#' name: one pass gives each column's rescaling and clipping range from all
#' rows), or beforehand on rows in memory ([nystrom()] must be). A map
#' built on a sample takes its input rescaling and, with `clip = TRUE` (the
#' default), its clipping range from the sample, and every chunk's rows are
#' clipped to that range, training rows included: build it on rows that
#' cover the data, or with `clip = FALSE`. [krr_fit()] warns when 1% of the
#' training rows or more lie outside the map's range by more than its width
#' (chunks split by the value of a column, say).
#'
#' @section Processing chunks in parallel, or on other machines:
#' Fits and predictions on chunked data use the \pkg{future} framework (a
#' suggested package) when it is installed and a plan is set: the chunks
#' are then processed as futures wherever the plan runs them (background R
#' sessions with `future::plan(future::multisession, workers = 2)`, other
#' machines with `plan(cluster, workers = c("host1", "host2"))`, jobs of a
#' scheduler with \pkg{future.batchtools}, ...). Nothing changes with no
#' plan, with `plan(sequential)`, or without \pkg{future}: chunks are read
#' in this process, one at a time. The `parallel` argument of [krr_fit()]
#' and [predict()][predict.kitchen_krr] overrides this: `"future"` always
#' uses futures, `"none"` never.
#'
#' Each future reads its chunk itself: the chunk (for a list source, only
#' that one is sent), the function (with the variables it uses), or the file
#' path, which must then be readable where the future runs (a shared disk
#' for several machines). It rebuilds nothing from the data: it gets the
#' feature map (a few numbers) and returns only its chunk's partial sums
#' (`Z'Z`, `Z'y`, column sums, `y'y`, the row count, the classes and columns
#' seen) or, for prediction, its chunk's predictions. The main process adds
#' the partial sums up in chunk order, so a fit gives the same coefficients
#' (up to rounding far below 1e-10) whatever the plan and the number of
#' workers; it also checks that the chunks agree (columns, response kind,
#' factor levels) and names the chunk that does not, as for a failure in a
#' worker (same messages as without futures).
#'
#' Memory stays bounded: futures are submitted as many at a time as the plan
#' has workers ([future::nbrOfWorkers()]; 16 when it has no limit, as with
#' schedulers), and collected in chunk order, so the main process holds at
#' most that many partial results besides its running sums (each partial
#' result is one `n_features x n_features` matrix). A function source is
#' read past its end by up to that many futures, whose `NULL` ends the pass.
#' Without futures, each chunk's `Z'Z` is added to the running sums in place
#' and its matrix is filled again by the next chunk, so many small chunks
#' cost no fresh memory.
#'
#' Threads: when `n_threads` is given, every worker uses that many; when it
#' is `NULL` and the plan has several workers, each uses one thread (workers
#' usually share a machine's cores), and a single worker uses its own
#' default (see [kitchen_threads()]). Set `n_threads` when each worker has
#' a machine to itself: the session's `options(kitchen.threads)` does not
#' reach workers in other processes (it counts this machine's cores), while
#' its SIMD, BLAS and LAPACK choices (`kitchen.simd`, `kitchen.gemm`,
#' `kitchen.tridiagonal`) travel with each task.
#'
#' @param source A list of chunks, a list of data frames, a function of the
#'   chunk number, or a character vector of file paths (see Details).
#' @param reader For file paths only: a function of one path returning a data
#'   frame, or `NULL` to choose by the file extension: CSV files with
#'   `data.table::fread()` when installed, else [utils::read.csv()] (see
#'   Details), `.rds` files with [readRDS()].
#' @param x For file paths and data frames only: the names of the predictor
#'   columns, or `NULL` for all columns but `y`.
#' @param y For file paths and data frames only: the name of the response
#'   column, or `NULL` when they hold predictors only (for prediction).
#' @param weights For file paths and data frames only: the name of the
#'   column of sample weights, or `NULL` for none.
#' @return An object of class `kitchen_chunked`.
#' @seealso [read_chunk()] to read one chunk (for example to build a feature
#'   map on it), [chunked_db()] and [chunked_parquet()] for databases and
#'   Parquet files, [krr_fit()], [predict.kitchen_krr()].
#' @export
#' @examples
#' set.seed(1)
#' make_chunk <- function(n) {
#'   x <- matrix(runif(n * 2, -3, 3), n, 2)
#'   list(x = x, y = sin(x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.1))
#' }
#' data <- chunked(lapply(1:4, function(i) make_chunk(500)))
#' data
#' # The map's rescaling and clipping range from one pass over the chunks
#' map <- rff(data, 300, sigma = 1, seed = 1)
#' fit <- krr_fit(data, map, n_threads = 2)
#' fit
#' head(predict(fit, data, n_threads = 2))
#'
#' # The same data as CSV files, read one at a time
#' paths <- file.path(tempdir(), sprintf("chunk%d.csv", 1:4))
#' for (i in 1:4) {
#'   chunk <- read_chunk(data, i)
#'   utils::write.csv(data.frame(chunk$x, y = chunk$y), paths[i], row.names = FALSE)
#' }
#' files <- chunked(paths, y = "y")
#' files
#' coef(krr_fit(files, map, lambda = 0.1, n_threads = 2))[1:3, ]
#' unlink(paths)
#'
#' # Chunks as futures: here under the default sequential plan (in this
#' # process); after future::plan(future::multisession, workers = 2) the
#' # same call would use 2 background R sessions (see vignette("scaling-out")).
#' if (requireNamespace("future", quietly = TRUE)) {
#'   fit_f <- krr_fit(data, map, lambda = 0.1, n_threads = 2, parallel = "future")
#'   all.equal(coef(fit_f), coef(krr_fit(data, map, lambda = 0.1, n_threads = 2)))
#' }
chunked <- function(source, reader = NULL, x = NULL, y = NULL, weights = NULL) {
  files_only <- c(reader = !is.null(reader), x = !is.null(x), y = !is.null(y),
                  weights = !is.null(weights))
  if (is.character(source)) {
    return(chunked_files(source, reader, x, y, weights))
  }
  if (is.function(source)) {
    kind <- "function"
    if (length(formals(source)) < 1) {
      abort_arg("{.arg source} must be a function of the chunk number, {.code function(i)}; this one takes no argument.")
    }
  } else if (is.list(source) && length(source) && !is.data.frame(source) &&
             all(vapply(source, is.data.frame, TRUE))) {
    if (!is.null(reader)) abort_arg("{.arg reader} is only for file paths.")
    check_column_args(x, y, weights)
    return(structure(list(kind = "list", source = source, frames = TRUE, x = x, y = y,
                          weights = weights), class = "kitchen_chunked"))
  } else if (is.list(source) && !is.data.frame(source)) {
    kind <- "list"
    if (length(source) < 1) abort_arg("{.arg source} must hold at least one chunk, not an empty list.")
    not_chunk <- which(!vapply(source, is_chunk, TRUE))
    if (length(not_chunk)) {
      abort_arg(c("{.arg source} must be a list of chunks, each a list with {.field x} and {.field y}.",
                  x = "Element {not_chunk[1]} is {.obj_type_friendly {source[[not_chunk[1]]]}}."))
    }
  } else {
    abort_arg("{.arg source} must be a list of chunks, a function of the chunk number or a character vector of file paths, not {.obj_type_friendly {source}}.")
  }
  if (any(files_only)) {
    given <- names(files_only)[files_only]
    abort_arg("{.arg {given}} {?is/are} only for file paths and data frames; a {kind} source gives {.field x} and {.field y} in each chunk.")
  }
  structure(list(kind = kind, source = source), class = "kitchen_chunked")
}

is_chunk <- function(chunk) is.list(chunk) && !is.data.frame(chunk) && !is.null(chunk$x)

chunked_files <- function(paths, reader, x, y, weights = NULL, call = rlang::caller_env()) {
  if (length(paths) < 1 || anyNA(paths) || any(!nzchar(paths))) {
    abort_arg("{.arg source} must be one or more file paths, without NA or empty strings.", call = call)
  }
  missing <- paths[!file.exists(paths)]
  if (length(missing)) {
    abort_arg(c("{.arg source} must name existing files.", x = "Not found: {.file {missing}}."),
              call = call)
  }
  if (!is.null(reader) && !is.function(reader)) {
    abort_arg("{.arg reader} must be a function of one file path, or {.code NULL}, not {.obj_type_friendly {reader}}.",
              call = call)
  }
  if (is.null(reader)) {
    unknown <- paths[is.na(file_format(paths))]
    if (length(unknown)) {
      abort_arg(c("{.arg source} files must end in {.file .csv}, {.file .csv.gz} or {.file .rds}, or {.arg reader} must be given.",
                  x = "Unknown format: {.file {unknown}}."), call = call)
    }
  }
  check_column_args(x, y, weights, call = call)
  structure(list(kind = "files", source = paths, reader = reader, x = x, y = y, weights = weights),
            class = "kitchen_chunked")
}

# The column names of a source of data frames (files, a database, Parquet).
check_column_args <- function(x, y, weights, call = rlang::caller_env()) {
  if (!is.null(y) && (!is.character(y) || length(y) != 1L || is.na(y) || !nzchar(y))) {
    abort_arg("{.arg y} must be the name of the response column (one string), not {.obj_type_friendly {y}}.",
              call = call)
  }
  if (!is.null(weights) && (!is.character(weights) || length(weights) != 1L || is.na(weights) ||
                            !nzchar(weights) || identical(weights, y))) {
    abort_arg("{.arg weights} must be the name of the column of sample weights (not the response), not {.obj_type_friendly {weights}}.",
              call = call)
  }
  if (!is.null(x)) {
    if (!is.character(x) || length(x) < 1 || anyNA(x) || any(!nzchar(x)) || anyDuplicated(x)) {
      abort_arg("{.arg x} must be the names of the predictor columns (distinct, non-empty).", call = call)
    }
    taken <- intersect(c(y, weights), x)
    if (length(taken)) {
      abort_arg("{.arg x} must not include the response or weights column {.val {taken}}.", call = call)
    }
  }
}

# "csv", "rds" or NA, from the extension.
file_format <- function(paths) {
  ifelse(grepl("\\.csv(\\.gz)?$", paths, ignore.case = TRUE), "csv",
         ifelse(grepl("\\.rds$", paths, ignore.case = TRUE), "rds", NA_character_))
}

# Number of chunks, NA when only reading tells (function sources, a query
# read in chunks).
n_chunks <- function(data) {
  switch(data$kind,
    "function" = NA_integer_,
    database = if (length(data$source) > 1) length(data$source) else NA_integer_,
    parquet = nrow(data$row_groups),  # R/source_parquet.R
    length(data$source))
}

#' Read one chunk of chunked data
#'
#' @param data Chunked data from [chunked()].
#' @param i The chunk number.
#' @return A list with `x`, `y` (`NULL` when the chunk has no response) and
#'   `weights` (`NULL` when it has none), as stored (not yet checked), or
#'   `NULL` when there is no chunk `i`.
#' @export
#' @examples
#' data <- chunked(list(list(x = matrix(1:4, 2), y = 1:2)))
#' read_chunk(data, 1)
#' read_chunk(data, 2)
read_chunk <- function(data, i = 1) {
  if (!inherits(data, "kitchen_chunked")) {
    abort_arg("{.arg data} must be chunked data from {.fn chunked}, not {.obj_type_friendly {data}}.")
  }
  check_count(i)
  on.exit(close_chunk_source(data))
  chunk_read(data, i)
}

# Chunk i as list(x, y), or NULL past the end; any failure names the chunk.
chunk_read <- function(data, i, call = rlang::caller_env()) {
  with_chunk(data, i, "could not be read", call = call, chunk_read_raw(data, i))
}

# The same, with errors as they come (the caller names the chunk).
chunk_read_raw <- function(data, i) {
  if (data$kind %in% c("list", "files") && i > length(data$source)) return(NULL)
  switch(data$kind,
    list = if (isTRUE(data$frames)) {
      chunk_from_frame(data$source[[i]], data$x, data$y, data$weights, what = "data frame")
    } else chunk_fields(data$source[[i]]),
    "function" = {
      chunk <- data$source(i)
      if (!is.null(chunk) && !is_chunk(chunk)) {
        abort_arg("The function must return a list with {.field x} and {.field y}, or {.code NULL}, not {.obj_type_friendly {chunk}}.")
      }
      if (!is.null(chunk)) chunk_fields(chunk)
    },
    files = read_chunk_file(data, data$source[[i]]),
    database = read_db_chunk(data, i),     # R/source_dbi.R
    parquet = read_parquet_chunk(data, i))  # R/source_parquet.R
}

# After a pass over the data: a database source closes what it opened.
close_chunk_source <- function(data) {
  if (identical(data$kind, "database")) close_db_source(data)
}

# x and y of a chunk, and its weights when it has them. 64-bit integer
# columns of a data frame x (databases, Parquet, bit64) become doubles.
chunk_fields <- function(chunk) {
  x <- chunk$x
  if (is.data.frame(x)) x <- integer64_as_double(x)
  c(list(x = x, y = chunk$y), if (!is.null(chunk$weights)) list(weights = chunk$weights))
}

integer64_as_double <- function(frame) {
  wide <- vapply(frame, inherits, TRUE, "integer64")
  frame[wide] <- lapply(frame[wide], as.double)
  frame
}

read_chunk_file <- function(data, path) {
  frame <- if (!is.null(data$reader)) data$reader(path) else switch(file_format(path),
    csv = read_csv_chunk(path),
    rds = readRDS(path))
  if (!is.data.frame(frame)) {
    abort_arg("The file must hold a data frame, not {.obj_type_friendly {frame}}.")
  }
  chunk_from_frame(frame, data$x, data$y, data$weights)
}

# A chunk from a data frame and the names of its columns (NULL `x`: all
# but `y` and `weights`). 64-bit integers (databases, Parquet) become
# doubles.
chunk_from_frame <- function(frame, x, y, weights, what = "file") {
  absent <- setdiff(c(x, y, weights), names(frame))
  if (length(absent)) abort_arg("The {what} lacks {cli::qty(length(absent))}column{?s} {.val {absent}}.")
  frame <- integer64_as_double(frame)
  if (is.null(x)) x <- setdiff(names(frame), c(y, weights))
  chunk_fields(list(x = frame[x], y = if (!is.null(y)) frame[[y]],
                    weights = if (!is.null(weights)) frame[[weights]]))
}

# Evaluates `expr`, turning any error into one that names chunk i (and its
# file) with the original error as the cause.
with_chunk <- function(data, i, what, expr, call = rlang::caller_env()) {
  tryCatch(expr, error = function(e) {
    # Our own checks ran in internal helpers: their names would only confuse.
    if (inherits(e, "kitchen_error_argument")) e$call <- NULL
    where <- chunk_where(data, i)
    abort_arg("Chunk {i}{where} {what}.", parent = e, call = call)
  })
}

# Where chunk i comes from, for messages: its file, query rows or row group.
chunk_where <- function(data, i) {
  switch(data$kind,
    files = sprintf(" (%s)", data$source[[i]]),
    database = db_chunk_where(data, i),
    parquet = parquet_chunk_where(data, i),
    "")
}

#' @export
print.kitchen_chunked <- function(x, ...) {
  cat("<kitchen chunked data>\n")
  n <- n_chunks(x)
  fields <- switch(x$kind,
    list = c(source = sprintf("list of %d %s", n, if (isTRUE(x$frames)) {
               if (n == 1) "data frame" else "data frames"
             } else if (n == 1) "chunk" else "chunks"),
             response = if (isTRUE(x$frames)) {
               if (is.null(x$y)) "none" else sprintf("column \"%s\"", x$y)
             },
             weights = if (isTRUE(x$frames) && !is.null(x$weights)) sprintf("column \"%s\"", x$weights)),
    "function" = c(source = "function of the chunk number (chunks counted when read)"),
    files = c(
      source = sprintf("%d file%s (%s%s)", n, if (n == 1) "" else "s", basename(x$source[[1]]),
                       if (n > 1) ", ..." else ""),
      reader = if (is.null(x$reader)) csv_reader_label() else "user function",
      response = if (is.null(x$y)) "none" else sprintf("column \"%s\"", x$y),
      weights = if (!is.null(x$weights)) sprintf("column \"%s\"", x$weights),
      predictors = if (is.null(x$x)) "all other columns" else paste(x$x, collapse = ", ")),
    database = db_print_fields(x),
    parquet = parquet_print_fields(x))
  print_map_fields(fields)
  invisible(x)
}
