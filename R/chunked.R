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
#'
#' Threads: when `n_threads` is given, every worker uses that many; when it
#' is `NULL` and the plan has several workers, each uses one thread (workers
#' usually share a machine's cores), and a single worker uses its own
#' default (see [kitchen_threads()]). Set `n_threads` when each worker has
#' a machine to itself.
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
#' @param weights For file paths only: the name of the column of sample
#'   weights, or `NULL` for none.
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
    abort_arg("{.arg y} must be the name of the response column, not {.obj_type_friendly {y}}.",
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
    list = chunk_fields(data$source[[i]]),
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

# x and y of a chunk, and its weights when it has them.
chunk_fields <- function(chunk) {
  c(list(x = chunk$x, y = chunk$y), if (!is.null(chunk$weights)) list(weights = chunk$weights))
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
  if (length(absent)) abort_arg("The {what} lacks column{?s} {.val {absent}}.")
  wide <- vapply(frame, inherits, TRUE, "integer64")
  frame[wide] <- lapply(frame[wide], as.double)
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
    list = c(source = sprintf("list of %d chunk%s", n, if (n == 1) "" else "s")),
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

#' @rdname krr_fit
#' @export
krr_fit.kitchen_chunked <- function(x, features, lambda = "cv", sigma = NULL, n_folds = 5,
                                    n_threads = NULL, verbose = interactive(),
                                    block_size = 4096, parallel = c("auto", "future", "none"),
                                    loss = c("squared", "logistic"), tol = 1e-6, max_iter = 1000,
                                    ...) {
  call <- fit_call(match.call())
  if (...length()) {
    if ("y" %in% names(list(...))) {
      abort_arg("{.arg y} must not be given with chunked data: each chunk holds its response.")
    }
    if ("weights" %in% names(list(...))) {
      abort_arg(c("{.arg weights} must not be given with chunked data: each chunk holds its own.",
                  i = "Give each chunk a {.field weights} element, or name the column with {.code chunked(paths, weights = )}."))
    }
    abort_arg("Arguments in {.arg ...} are not used with chunked data (the map must already be built).")
  }
  map <- chunked_map(if (!missing(features)) features)
  binned <- inherits(map, "kitchen_rbin")
  if (!binned) check_gram_size(map$n_features)
  check_lambda(lambda)
  check_flag(verbose)
  check_count(block_size)
  loss <- match_choice(loss, c("squared", "logistic"))
  logistic <- loss == "logistic"
  if (logistic) check_logistic_map(map)
  # The logistic loss has no GCV: every lambda choice is by CV.
  logistic_cv <- logistic && !(is.numeric(lambda) && length(lambda) == 1)
  if (logistic && is.character(lambda)) lambda <- "cv"
  if (identical(lambda, "cv") || logistic_cv) check_count(n_folds, min = 2)
  if (missing(lambda) && !binned) lambda <- chunked_default_lambda(x, n_folds)
  engine <- chunk_engine(parallel, n_threads)
  if (binned) {
    check_positive(tol)
    check_count(max_iter)
    return(binned_chunked_fit(x, map, lambda, sigma, n_folds, tol, max_iter, n_threads, verbose,
                              engine, call))  # R/krr_binned_chunked.R
  }
  ard <- NULL
  if (identical(sigma, "ard")) {
    ard <- ard_map_chunked(map, x, resolve_threads(n_threads))  # R/ard.R
    map <- ard$map
    sigma <- NULL
  }
  sigmas <- bandwidth_candidates(sigma, map, lambda)
  fold_count <- if (identical(lambda, "cv") || logistic_cv) n_folds
  here <- rlang::current_env()  # errors from the pass name krr_fit()
  first_pass <- new.env()  # what each chunk held, to check later passes against

  started <- proc.time()[["elapsed"]]
  search <- if (logistic) {
    check_positive(tol)
    check_count(max_iter)
    chunked_logistic_fit(x, map, sigmas, lambda, fold_count, tol, max_iter, block_size, engine,
                         verbose, here)  # R/krr_logistic_chunked.R
  } else krr_bandwidth_search(map, sigmas, lambda, function(candidate) {
    chunked_statistics(x, candidate, fold_count, block_size, engine, verbose, call = here,
                       first_pass = first_pass)
  }, resolve_threads(n_threads))
  info <- search$stats$chunks
  fit <- warn_if_interpolating(new_krr_fit(search, if (!is.null(fold_count)) seq_len(fold_count),
                                           info$response, search$stats$rows, info$col_names,
                                           started, call))
  fit$ard <- ard$report
  if (logistic) {
    fit$loss <- loss
    fit$logistic <- search$solution$logistic
  }
  fit
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
}

# One pass over the chunks: the sufficient statistics of krr_statistics(),
# with `chunks` describing the response and columns seen. Each chunk gives
# its own partial sums (fit_chunk(), in this process or in a future), added
# here in chunk order, so that the result does not depend on the engine.
# With `n_folds`, chunk i goes to fold (i - 1) %% n_folds + 1. Each pass
# (one per bandwidth candidate) must read the same chunks: the first records
# each chunk's fingerprint in the environment `first_pass`, later ones
# compare.
chunked_statistics <- function(data, map, n_folds, block_size, engine, verbose, call,
                               first_pass = new.env()) {
  acc <- NULL
  response <- NULL
  col_names <- NULL
  args <- list(map = map, col_names = NULL, block_size = block_size, what = "holds bad data")
  n_read <- for_each_chunk_task(data, "fit_chunk", args, engine = engine, verbose = verbose,
                                call = call, consume = function(part, i) {
    with_chunk(data, i, "holds bad data", call = call, {
      if (i == 1) col_names <<- part$col_names
      if (chunk_columns_differ(part$col_names, col_names)) {
        # Same columns in another order, and a map without names: the
        # chunk is featurised again here with the columns of chunk 1.
        args$col_names <- col_names
        args["n_threads"] <- list(engine$n_threads)
        redo <- run_chunk_task(data, i, fit_chunk, args)
        if (!is.null(redo$error)) stop(redo$error)
        part <- redo$value
      }
      check_same_chunk(first_pass, i, part$fingerprint)
      merged <- merge_response(response, part$response)
      response <<- merged$state
      fold <- if (!is.null(n_folds)) (i - 1) %% n_folds + 1
      acc <<- add_partial(acc, map, part$stats, merged$columns, response_width(merged$state),
                          n_folds, fold)
    })
  })
  if (n_read == 0) abort_arg("{.arg x} has no chunks: chunk 1 is {.code NULL}.", call = call)
  if (is.null(first_pass$n_read)) first_pass$n_read <- n_read
  if (n_read != first_pass$n_read) {
    abort_arg(c("{.arg x} gave {n_read} chunk{?s} on this pass over the data, {first_pass$n_read} on the first.",
                i = "A source must give the same chunks on every pass (one pass per {.arg sigma} candidate)."),
              call = call)
  }
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

# The task run on each chunk (maybe in a worker): checks the chunk and
# returns its partial sums (one triangle of Z'Z, Z'y, sums, y'y, n) with its
# response coding and column names; never the features. `col_names` (chunk
# 1's, when known and needed) orders the columns.
fit_chunk <- function(chunk, i, map, col_names, block_size, n_threads) {
  if (is.null(chunk$y)) abort_arg("The chunk has no response {.field y}.")
  x <- map_input(map, chunk$x, arg = "x")
  names <- colnames(x)
  if (!is.null(names)) check_column_names(names, "x", NULL)  # they order the other chunks
  if (!is.null(col_names)) x <- match_chunk_columns(x, col_names)
  coded <- chunk_response(chunk$y, nrow(x))
  weights <- check_weights(chunk$weights, nrow(x), arg = "weights")
  acc <- new_accumulator(map, ncol(coded$y))
  acc <- accumulate_rows(acc, map, x, coded$y, NULL, block_size, resolve_threads(n_threads),
                         weights = weights)
  list(stats = acc$total, response = coded$state, col_names = names,
       fingerprint = c(rows = nrow(x), x = sum(x), y = sum(coded$y),
                       weights = if (!is.null(weights)) sum(weights)))
}

# A chunk's rows and sums must be those it had on the first pass.
check_same_chunk <- function(first_pass, i, fingerprint) {
  key <- as.character(i)
  known <- first_pass[[key]]
  if (is.null(known)) {
    assign(key, fingerprint, envir = first_pass)
  } else if (!identical(known, fingerprint)) {
    abort_arg(c("It differs from what it held on the first pass over the data (row count or sums).",
                i = "A source must give the same chunks on every pass (one pass per {.arg sigma} candidate)."))
  }
}

# TRUE when a chunk has chunk 1's columns in another order (an error when
# they are other columns); never for maps with names, which order them.
chunk_columns_differ <- function(names, col_names) {
  if (is.null(col_names) || is.null(names) || identical(names, col_names)) return(FALSE)
  if (!setequal(names, col_names)) {
    abort_arg(c("{.arg x} must have the columns of chunk 1.",
                x = "Differing: {.val {union(setdiff(names, col_names), setdiff(col_names, names))}}."))
  }
  TRUE
}

# Adds a chunk's partial sums to the running ones (per fold with folds);
# `columns` places its response columns among the `k` known so far.
add_partial <- function(acc, map, stats, columns, k, n_folds, fold) {
  if (is.null(acc)) acc <- new_accumulator(map, k, n_folds)
  acc <- widen_accumulator(acc, k)
  if (!identical(columns, seq_len(k))) {
    zy <- matrix(0, nrow(stats$zy), k)
    zy[, columns] <- stats$zy
    ysum <- yy <- numeric(k)
    ysum[columns] <- stats$ysum
    yy[columns] <- stats$yy
    stats$zy <- zy
    stats$ysum <- ysum
    stats$yy <- yy
  }
  if (is.null(fold)) {
    acc$total <- sum_statistics(acc$total, stats)
  } else {
    acc$per_fold[[fold]] <- sum_statistics(acc$per_fold[[fold]], stats)
  }
  acc
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

# The chunk's response as a matrix, with its coding state: numeric
# responses their column count; class labels as 0/1 indicators of the
# classes in the chunk, in order of appearance (merge_response() places
# them among all classes seen), turned into the +1 / -1 coding of
# krr_response() after the pass, when all are known.
chunk_response <- function(y, n) {
  if (is.factor(y) || is.character(y)) {
    labels <- as.character(y)
    if (anyNA(labels)) abort_arg("{.arg y} must not contain NA values.")
    seen <- unique(labels)
    state <- list(type = "class", kind = if (is.factor(y)) "factor" else "character",
                  factor_levels = if (is.factor(y)) levels(y), seen = seen)
    y <- 1 * outer(match(labels, seen), seq_along(seen), "==")
  } else {
    if (!(is.double(y) || is.integer(y)) || is.object(y) || length(dim(y)) > 2L) {
      abort_arg("{.arg y} must be a numeric vector or matrix, or a factor or character vector of classes, not {.obj_type_friendly {y}}.")
    }
    y <- as.matrix(y)
    storage.mode(y) <- "double"
    check_finite(y, arg = "y")
    state <- list(type = if (ncol(y) == 1) "vector" else "matrix", levels = NULL,
                  names = colnames(y), k = ncol(y))
  }
  if (nrow(y) != n) {
    abort_arg("{.arg y} must have one value per row of {.arg x} ({n}), not {nrow(y)}.")
  }
  if (ncol(y) == 0) abort_arg("{.arg y} must have at least one column.")
  list(y = y, state = state)
}

# The response state after one more chunk (checked against chunk 1's), and
# where the chunk's response columns go.
merge_response <- function(state, part) {
  if (is.null(state)) return(list(state = part, columns = seq_len(response_width(part))))
  if (identical(part$type, "class")) {
    if (!identical(state$type, "class") || state$kind != part$kind) {
      abort_arg("{.arg y} must be of the same kind in every chunk: this one holds {response_kind(part)}, chunk 1 {response_kind(state)}.")
    }
    if (part$kind == "factor" && !identical(part$factor_levels, state$factor_levels)) {
      abort_arg(c("{.arg y} must have the same levels in every chunk.",
                  x = "Levels {.val {part$factor_levels}}; chunk 1 had {.val {state$factor_levels}}."))
    }
    state$seen <- union(state$seen, part$seen)
    return(list(state = state, columns = match(part$seen, state$seen)))
  }
  if (!identical(state$type, part$type) || state$k != part$k) {
    abort_arg("{.arg y} must have the same kind and number of columns in every chunk.")
  }
  list(state = state, columns = seq_len(part$k))
}

response_width <- function(state) {
  if (identical(state$type, "class")) length(state$seen) else state$k
}

response_kind <- function(state) {
  if (!identical(state$type, "class")) "numbers"
  else if (state$kind == "factor") "a factor" else "character labels"
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

# Predictions for every row of chunked newdata, in chunk order (each chunk
# predicted where it is read: in this process or in a future).
predict_chunked <- function(object, newdata, type, n_threads, block_size, parallel,
                            call = rlang::caller_env()) {
  check_count(block_size, call = call)
  engine <- chunk_engine(parallel, n_threads, call = call)
  parts <- list()
  args <- list(object = object, type = type, block_size = block_size,
               what = "could not be predicted")
  for_each_chunk_task(newdata, "predict_chunk", args, engine = engine, verbose = FALSE,
                      call = call, consume = function(value, i) parts[[i]] <<- value)
  if (type == "class") {
    return(factor(unlist(lapply(parts, as.character)), levels = object$response$levels))
  }
  if (object$response$type == "vector") unlist(parts) else do.call(rbind, parts)
}

predict_chunk <- function(chunk, i, object, type, block_size, n_threads) {
  # Checked here so that the message names `x` (formula fits check in
  # model.frame()).
  x <- if (is.null(object$terms)) fit_input(object, chunk$x, arg = "x") else chunk$x
  predict.kitchen_krr(object, x, type = type, n_threads = n_threads, block_size = block_size,
                      parallel = "none")
}
