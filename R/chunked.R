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
#'   vector of class labels; it may be left out for prediction);
#' * a **function** `function(i)` returning chunk `i` (a list as above) for
#'   `i = 1, 2, ...`, and `NULL` past the last chunk. It is called again from
#'   `i = 1` for every pass over the data, so it must give the same chunks
#'   each time (for example by reading the `i`-th file, or rows of a
#'   database table by offset);
#' * a **character vector of file paths**, each file holding a data frame:
#'   read with [utils::read.csv()] for `.csv` (or `.csv.gz`) files and with
#'   [readRDS()] for `.rds` files, or with `reader(path)` for any file.
#'   `y` names the response column, `x` the predictor columns (all other
#'   columns by default).
#'
#' Every chunk must have the same columns (matched by name when they have
#' names). For classification, the classes are the levels of factor
#' responses, which must be the same in every chunk (classes that never
#' occur are dropped, as [droplevels()] would), or the sorted distinct
#' values of character responses (as [factor()] would make them, so a CSV
#' response column needs no conversion).
#'
#' A chunk that cannot be read, or that holds bad data (missing or extra
#' columns, NA, non-numeric predictors, a response of the wrong kind), stops
#' the fit or the prediction with an error naming the chunk (its number and,
#' for files, its path); no partial result is returned.
#'
#' @param source A list of chunks, a function of the chunk number, or a
#'   character vector of file paths (see Details).
#' @param reader For file paths only: a function of one path returning a data
#'   frame, or `NULL` to choose [utils::read.csv()] or [readRDS()] by the file
#'   extension.
#' @param x For file paths only: the names of the predictor columns, or
#'   `NULL` for all columns but `y`.
#' @param y For file paths only: the name of the response column, or `NULL`
#'   when the files hold predictors only (for prediction).
#' @return An object of class `kitchen_chunked`.
#' @seealso [read_chunk()] to read one chunk (for example to build a feature
#'   map on it), [krr_fit()], [predict.kitchen_krr()].
#' @export
#' @examples
#' set.seed(1)
#' make_chunk <- function(n) {
#'   x <- matrix(runif(n * 2, -3, 3), n, 2)
#'   list(x = x, y = sin(x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.1))
#' }
#' data <- chunked(lapply(1:4, function(i) make_chunk(500)))
#' data
#' # The map is built on a sample of the data: here, the first chunk.
#' map <- rff(read_chunk(data, 1)$x, 300, sigma = 1, seed = 1)
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
#' map <- rff(read_chunk(files, 1)$x, 300, sigma = 1, seed = 1)
#' coef(krr_fit(files, map, lambda = 0.1, n_threads = 2))[1:3, ]
#' unlink(paths)
chunked <- function(source, reader = NULL, x = NULL, y = NULL) {
  files_only <- c(reader = !is.null(reader), x = !is.null(x), y = !is.null(y))
  if (is.character(source)) {
    return(chunked_files(source, reader, x, y))
  }
  if (is.function(source)) {
    kind <- "function"
    if (length(formals(source)) < 1) {
      abort_arg("{.arg source} must be a function of the chunk number, {.code function(i)}; this one takes no argument.")
    }
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
    abort_arg("{.arg {given}} {?is/are} only for file paths; a {kind} source gives {.field x} and {.field y} in each chunk.")
  }
  structure(list(kind = kind, source = source), class = "kitchen_chunked")
}

is_chunk <- function(chunk) is.list(chunk) && !is.data.frame(chunk) && !is.null(chunk$x)

chunked_files <- function(paths, reader, x, y, call = rlang::caller_env()) {
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
  if (!is.null(y) && (!is.character(y) || length(y) != 1L || is.na(y) || !nzchar(y))) {
    abort_arg("{.arg y} must be the name of the response column, not {.obj_type_friendly {y}}.",
              call = call)
  }
  if (!is.null(x)) {
    if (!is.character(x) || length(x) < 1 || anyNA(x) || any(!nzchar(x)) || anyDuplicated(x)) {
      abort_arg("{.arg x} must be the names of the predictor columns (distinct, non-empty).", call = call)
    }
    if (!is.null(y) && y %in% x) {
      abort_arg("{.arg x} must not include the response column {.val {y}}.", call = call)
    }
  }
  structure(list(kind = "files", source = paths, reader = reader, x = x, y = y),
            class = "kitchen_chunked")
}

# "csv", "rds" or NA, from the extension.
file_format <- function(paths) {
  ifelse(grepl("\\.csv(\\.gz)?$", paths, ignore.case = TRUE), "csv",
         ifelse(grepl("\\.rds$", paths, ignore.case = TRUE), "rds", NA_character_))
}

# Number of chunks, NA when only reading tells (function sources).
n_chunks <- function(data) {
  if (data$kind == "function") NA_integer_ else length(data$source)
}

#' Read one chunk of chunked data
#'
#' @param data Chunked data from [chunked()].
#' @param i The chunk number.
#' @return A list with `x` and `y` (`NULL` when the chunk has no response),
#'   as stored (not yet checked), or `NULL` when there is no chunk `i`.
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
  chunk_read(data, i)
}

# Chunk i as list(x, y), or NULL past the end; any failure names the chunk.
chunk_read <- function(data, i, call = rlang::caller_env()) {
  if (data$kind != "function" && i > length(data$source)) return(NULL)
  with_chunk(data, i, "could not be read", call = call, {
    switch(data$kind,
      list = list(x = data$source[[i]]$x, y = data$source[[i]]$y),
      "function" = {
        chunk <- data$source(i)
        if (!is.null(chunk) && !is_chunk(chunk)) {
          abort_arg("The function must return a list with {.field x} and {.field y}, or {.code NULL}, not {.obj_type_friendly {chunk}}.")
        }
        if (!is.null(chunk)) list(x = chunk$x, y = chunk$y)
      },
      files = read_chunk_file(data, data$source[[i]]))
  })
}

read_chunk_file <- function(data, path) {
  frame <- if (!is.null(data$reader)) data$reader(path) else switch(file_format(path),
    csv = utils::read.csv(path, check.names = FALSE),
    rds = readRDS(path))
  if (!is.data.frame(frame)) {
    abort_arg("The file must hold a data frame, not {.obj_type_friendly {frame}}.")
  }
  wanted <- c(data$x, data$y)
  absent <- setdiff(wanted, names(frame))
  if (length(absent)) abort_arg("The file lacks column{?s} {.val {absent}}.")
  x <- if (is.null(data$x)) setdiff(names(frame), data$y) else data$x
  list(x = frame[x], y = if (!is.null(data$y)) frame[[data$y]])
}

# Evaluates `expr`, turning any error into one that names chunk i (and its
# file) with the original error as the cause.
with_chunk <- function(data, i, what, expr, call = rlang::caller_env()) {
  tryCatch(expr, error = function(e) {
    # Our own checks ran in internal helpers: their names would only confuse.
    if (inherits(e, "kitchen_error_argument")) e$call <- NULL
    where <- if (data$kind == "files") sprintf(" (%s)", data$source[[i]]) else ""
    abort_arg("Chunk {i}{where} {what}.", parent = e, call = call)
  })
}

# Calls f(chunk, i) on every chunk in order, with a progress bar.
for_each_chunk <- function(data, f, verbose, call, label = "Reading chunks") {
  total <- n_chunks(data)
  if (verbose) cli::cli_progress_bar(label, total = total, clear = TRUE)
  i <- 1
  while (!is.null(chunk <- chunk_read(data, i, call = call))) {
    f(chunk, i)
    if (verbose) cli::cli_progress_update()
    i <- i + 1
  }
  invisible(i - 1)
}

#' @export
print.kitchen_chunked <- function(x, ...) {
  cat("<kitchen chunked data>\n")
  n <- n_chunks(x)
  fields <- switch(x$kind,
    list = c(source = sprintf("list of %d chunk%s", n, if (n == 1) "" else "s")),
    "function" = c(source = "function of the chunk number (chunks counted when read)"),
    files = c(
      source = sprintf("%d file%s (%s%s)", n, if (n == 1) "" else "s", basename(x$source[[1]]),
                       if (n > 1) ", ..." else ""),
      reader = if (is.null(x$reader)) "by extension (read.csv / readRDS)" else "user function",
      response = if (is.null(x$y)) "none" else sprintf("column \"%s\"", x$y),
      predictors = if (is.null(x$x)) "all other columns" else paste(x$x, collapse = ", ")))
  print_map_fields(fields)
  invisible(x)
}

#' @rdname krr_fit
#' @export
krr_fit.kitchen_chunked <- function(x, features, lambda = "gcv", sigma = NULL, n_folds = 5,
                                    n_threads = NULL, verbose = interactive(),
                                    block_size = 4096, ...) {
  call <- match.call()
  if (...length()) {
    if ("y" %in% names(list(...))) {
      abort_arg("{.arg y} must not be given with chunked data: each chunk holds its response.")
    }
    abort_arg("Arguments in {.arg ...} are not used with chunked data (the map must already be built).")
  }
  map <- chunked_map(if (!missing(features)) features)
  check_gram_size(map$n_features)
  check_lambda(lambda)
  check_flag(verbose)
  check_count(block_size)
  if (identical(lambda, "cv")) check_count(n_folds, min = 2)
  n_threads <- resolve_threads(n_threads)
  sigmas <- bandwidth_candidates(sigma, map, lambda)
  fold_count <- if (identical(lambda, "cv")) n_folds
  here <- rlang::current_env()  # errors from the pass name krr_fit()

  started <- proc.time()[["elapsed"]]
  search <- krr_bandwidth_search(map, sigmas, lambda, function(candidate) {
    chunked_statistics(x, candidate, fold_count, block_size, n_threads, verbose,
                       call = here)
  })
  info <- search$stats$chunks
  new_krr_fit(search, if (!is.null(fold_count)) seq_len(fold_count), info$response,
              search$stats$n, info$col_names, started, call)
}

# Chunked data need a map built beforehand, on a sample: building one needs
# the data in memory.
chunked_map <- function(features, call = rlang::caller_env()) {
  hint <- "Build the map on a sample, for example the first chunk: {.code rff(read_chunk(x, 1)$x, 1000)}."
  if (is.null(features) || is.character(features)) {
    abort_arg(c("{.arg features} must be a feature map when {.arg x} is chunked data.", i = hint),
              call = call)
  }
  validate_map(features, arg = "features", deep = TRUE, call = call)
  if (inherits(features, "kitchen_rbin")) {
    abort_arg(c("Random binning maps ({.fn rbin}) are not available with chunked data yet.",
                i = "Use an {.fn rff} or {.fn fastfood} map, or fit in memory."), call = call)
  }
  features
}

# One pass over the chunks: the sufficient statistics of krr_statistics(),
# with `chunks` describing the response and columns seen. With `n_folds`,
# chunk i goes to fold (i - 1) %% n_folds + 1.
chunked_statistics <- function(data, map, n_folds, block_size, n_threads, verbose, call) {
  acc <- NULL
  response <- NULL
  col_names <- NULL
  n_read <- for_each_chunk(data, verbose = verbose, call = call, function(chunk, i) {
    with_chunk(data, i, "holds bad data", call = call, {
      if (is.null(chunk$y)) abort_arg("The chunk has no response {.field y}.")
      x <- map_input(map, chunk$x, arg = "x")
      if (i == 1) col_names <<- colnames(x)
      x <- match_chunk_columns(x, col_names)
      coded <- chunk_response(chunk$y, nrow(x), response)
      response <<- coded$state
      if (is.null(acc)) acc <<- new_accumulator(map, ncol(coded$y), n_folds)
      acc <<- widen_accumulator(acc, ncol(coded$y))
      folds <- if (!is.null(n_folds)) rep((i - 1) %% n_folds + 1, nrow(x))
      acc <<- accumulate_rows(acc, map, x, coded$y, folds, block_size, n_threads)
    })
  })
  if (n_read == 0) abort_arg("{.arg x} has no chunks: chunk 1 is {.code NULL}.", call = call)
  if (!is.null(n_folds) && n_read < n_folds) {
    abort_arg("{.code lambda = \"cv\"} assigns whole chunks to folds: {.arg n_folds} ({n_folds}) must not exceed the number of chunks ({n_read}).",
              call = call)
  }
  stats <- finish_statistics(acc)
  if (response$type == "class") {
    response <- class_levels(response, call)
    stats <- class_statistics(stats, response)
  }
  stats$chunks <- list(response = response, col_names = col_names)
  stats
}

# Without names on the map, chunks are matched to the first chunk's names.
match_chunk_columns <- function(x, col_names) {
  names <- colnames(x)
  if (is.null(col_names) || is.null(names) || identical(names, col_names)) return(x)
  if (!setequal(names, col_names)) {
    abort_arg(c("{.arg x} must have the columns of chunk 1.",
                x = "Differing: {.val {union(setdiff(names, col_names), setdiff(col_names, names))}}."))
  }
  x[, col_names, drop = FALSE]
}

# The chunk's response as a matrix, and the state carried across chunks:
# numeric responses keep their column count; class labels are coded as 0/1
# indicators of the classes seen so far (new ones add columns), turned into
# the +1 / -1 coding of krr_response() after the pass, when all are known.
chunk_response <- function(y, n, state) {
  if (is.factor(y) || is.character(y)) {
    labels <- as.character(y)
    if (anyNA(labels)) abort_arg("{.arg y} must not contain NA values.")
    kind <- if (is.factor(y)) "factor" else "character"
    if (is.null(state)) {
      state <- list(type = "class", kind = kind, factor_levels = if (is.factor(y)) levels(y),
                    seen = character())
    } else if (!identical(state$type, "class") || state$kind != kind) {
      abort_arg("{.arg y} must be of the same kind in every chunk: this one is {.obj_type_friendly {y}}, chunk 1 was not.")
    } else if (kind == "factor" && !identical(levels(y), state$factor_levels)) {
      abort_arg(c("{.arg y} must have the same levels in every chunk.",
                  x = "Levels {.val {levels(y)}}; chunk 1 had {.val {state$factor_levels}}."))
    }
    state$seen <- union(state$seen, unique(labels))
    y <- 1 * outer(match(labels, state$seen), seq_along(state$seen), "==")
  } else {
    if (!(is.double(y) || is.integer(y)) || is.object(y) || length(dim(y)) > 2L) {
      abort_arg("{.arg y} must be a numeric vector or matrix, or a factor or character vector of classes, not {.obj_type_friendly {y}}.")
    }
    y <- as.matrix(y)
    storage.mode(y) <- "double"
    check_finite(y, arg = "y")
    if (is.null(state)) {
      state <- list(type = if (ncol(y) == 1) "vector" else "matrix", levels = NULL,
                    names = colnames(y), k = ncol(y))
    } else if (!identical(state$type, if (ncol(y) == 1) "vector" else "matrix") || ncol(y) != state$k) {
      abort_arg("{.arg y} must have the same kind and number of columns in every chunk.")
    }
  }
  if (nrow(y) != n) {
    abort_arg("{.arg y} must have one value per row of {.arg x} ({n}), not {nrow(y)}.")
  }
  list(y = y, state = state)
}

# New classes in a chunk: zero columns for them in the running statistics.
widen_accumulator <- function(acc, k) {
  widen <- function(s) {
    extra <- k - ncol(s$zy)
    if (extra <= 0) return(s)
    s$zy <- cbind(s$zy, matrix(0, nrow(s$zy), extra))
    s$ysum <- c(s$ysum, numeric(extra))
    s$yy <- c(s$yy, numeric(extra))
    s
  }
  acc$total <- widen(acc$total)
  if (!is.null(acc$per_fold)) acc$per_fold <- lapply(acc$per_fold, widen)
  acc
}

# The classes, ordered as droplevels() (factors) or factor() (character
# labels) would order them in memory.
class_levels <- function(response, call) {
  levels <- if (response$kind == "factor") {
    response$factor_levels[response$factor_levels %in% response$seen]
  } else sort(response$seen)
  if (length(levels) < 2) {
    abort_arg("{.arg y} must have at least two classes over all chunks, not {length(levels)}.",
              call = call)
  }
  response$levels <- response$names <- levels
  response
}

# From 0/1 class indicators to the +1 / -1 coding: y = 2 I - 1, so
# Z'y = 2 Z'I - colSums(Z), sum(y) = 2 count - n and y'y = n.
class_statistics <- function(stats, response) {
  levels <- response$levels
  order <- match(levels, response$seen)
  recode <- function(s) {
    s$zy <- 2 * s$zy[, order, drop = FALSE] - s$zsum
    colnames(s$zy) <- levels
    s$ysum <- 2 * s$ysum[order] - s$n
    s$yy <- rep(s$n, length(levels))
    s
  }
  stats <- recode(stats)
  if (!is.null(stats$folds)) stats$folds <- lapply(stats$folds, recode)
  stats
}

# Predictions for every row of chunked newdata, in chunk order.
predict_chunked <- function(object, newdata, type, n_threads, block_size,
                            call = rlang::caller_env()) {
  parts <- list()
  for_each_chunk(newdata, verbose = FALSE, call = call, function(chunk, i) {
    parts[[i]] <<- with_chunk(newdata, i, "could not be predicted", call = call, {
      # Checked here so that the message names `x` (formula fits check in
      # model.frame()).
      x <- if (is.null(object$terms)) map_input(object$map, chunk$x, arg = "x") else chunk$x
      predict.kitchen_krr(object, x, type = type, n_threads = n_threads, block_size = block_size)
    })
  })
  if (type == "class") {
    return(factor(unlist(lapply(parts, as.character)), levels = object$response$levels))
  }
  if (object$response$type == "vector") unlist(parts) else do.call(rbind, parts)
}
