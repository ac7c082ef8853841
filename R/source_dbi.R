#' Chunked data from a database query
#'
#' Describes the rows of an SQL query as chunked data (see [chunked()]), read
#' through \pkg{DBI} from any database it has a driver for (SQLite through
#' \pkg{RSQLite}, DuckDB through \pkg{duckdb}, PostgreSQL, ...). Nothing is
#' read when the object is made.
#'
#' With one query, each pass over the data sends it with
#' [DBI::dbSendQuery()] and fetches its rows `chunk_size` at a time with
#' [DBI::dbFetch()], so that only one chunk is in memory. With several
#' queries, each query is one chunk, read whole with [DBI::dbGetQuery()]:
#' for example one query per partition of a table,
#' `sprintf("SELECT * FROM flights WHERE month = %d", 1:12)`.
#'
#' A fit reads the data once per bandwidth candidate, so the query must give
#' the same rows in the same order every time: add an `ORDER BY` on a key
#' when the database does not promise an order (a chunk that differs on a
#' later pass stops the fit, naming the chunk). Columns are matched as in
#' [chunked()]: `y` names the response, `weights` the sample weights, and
#' `x` the predictors (all other columns by default); text columns hold
#' class labels, and 64-bit integers are read as doubles.
#'
#' @section Futures:
#' A connection cannot be sent to another R process. For fits and
#' predictions with futures (see "Processing chunks in parallel" in
#' [chunked()]), give `conn` as a function that connects, such as
#' `function() DBI::dbConnect(RSQLite::SQLite(), "data.sqlite")`: each
#' future then connects itself, reads its chunk and disconnects. With one
#' query, chunk `i` is then read as the query's rows `(i - 1) * chunk_size +
#' 1` to `i * chunk_size` (`SELECT * FROM (query) LIMIT .. OFFSET ..`): the
#' query needs a defined order, and since each future skips the rows before
#' its chunk, several queries (one per chunk) read large tables faster. In
#' this process, a function `conn` is called once per pass over the data,
#' and the connection closed at the end of the pass; a connection object is
#' used as it is and left open.
#'
#' @param conn A \pkg{DBI} connection, or a function of no arguments that
#'   returns one (needed for futures; see below).
#' @param query An SQL query (one string) read `chunk_size` rows at a time,
#'   or several queries, each giving one chunk (a query that returns no rows
#'   gives a chunk of none: see [chunked()]).
#' @param chunk_size The number of rows in a chunk of a single query.
#' @param x The names of the predictor columns, or `NULL` for all columns but
#'   `y` and `weights`.
#' @param y The name of the response column, or `NULL` when the query gives
#'   predictors only (for prediction).
#' @param weights The name of the column of sample weights, or `NULL` for
#'   none.
#' @return An object of class `kitchen_chunked`, for [krr_fit()] and
#'   [predict()][predict.kitchen_krr].
#' @seealso [chunked()] for lists, functions and files, [chunked_parquet()]
#'   for Parquet files, and `vignette("scaling-out")`.
#' @export
#' @examplesIf requireNamespace("RSQLite", quietly = TRUE)
#' set.seed(1)
#' n <- 2000
#' rows <- data.frame(a = runif(n, -3, 3), b = runif(n, -3, 3))
#' rows$y <- sin(rows$a) * cos(rows$b) + rnorm(n, sd = 0.1)
#' path <- tempfile(fileext = ".sqlite")
#' con <- DBI::dbConnect(RSQLite::SQLite(), path)
#' DBI::dbWriteTable(con, "points", rows)
#'
#' data <- chunked_db(con, "SELECT a, b, y FROM points ORDER BY rowid",
#'                    chunk_size = 500, y = "y")
#' data
#' map <- rff(as.matrix(rows[1:500, 1:2]), 200, sigma = 1, seed = 1)
#' fit <- krr_fit(data, map, lambda = 0.01, n_threads = 2)
#' fit
#' DBI::dbDisconnect(con)
#'
#' # The form that futures can use: a function that connects.
#' data <- chunked_db(function() DBI::dbConnect(RSQLite::SQLite(), path),
#'                    "SELECT a, b, y FROM points ORDER BY rowid", chunk_size = 500, y = "y")
#' all.equal(coef(krr_fit(data, map, lambda = 0.01, n_threads = 2)), coef(fit))
#' unlink(path)
chunked_db <- function(conn, query, chunk_size = 100000, x = NULL, y = NULL, weights = NULL) {
  rlang::check_installed("DBI", "to read chunks from a database.")
  if (is.function(conn)) {
    if (any(vapply(formals(conn), identical, TRUE, quote(expr = )))) {
      abort_arg("{.arg conn} must be a connection or a function of no arguments that returns one; this function has arguments without defaults.")
    }
  } else if (!inherits(conn, "DBIConnection")) {
    abort_arg("{.arg conn} must be a {.pkg DBI} connection or a function that returns one, not {.obj_type_friendly {conn}}.")
  } else if (!DBI::dbIsValid(conn)) {
    abort_arg("{.arg conn} is a connection that has been closed.")
  }
  if (!is.character(query) || length(query) < 1 || anyNA(query) || any(!nzchar(trimws(query)))) {
    abort_arg("{.arg query} must be one or more SQL queries (non-empty strings), not {.obj_type_friendly {query}}.")
  }
  check_count(chunk_size)
  check_column_args(x, y, weights)
  structure(list(kind = "database", source = query, conn = if (!is.function(conn)) conn,
                 connect = if (is.function(conn)) conn, chunk_size = chunk_size,
                 x = x, y = y, weights = weights, in_worker = FALSE,
                 stream = new.env(parent = emptyenv())),
            class = "kitchen_chunked")
}

# Chunk i of a database source, or NULL past the end. Several queries are
# one chunk each; one query is streamed in this process (dbFetch() of the
# open result, which a later chunk number continues) and paged in a worker.
read_db_chunk <- function(data, i) {
  if (length(data$source) > 1) {
    if (i > length(data$source)) return(NULL)
    frame <- with_db_connection(data, function(conn) DBI::dbGetQuery(conn, data$source[[i]]))
    # a chunk of no rows (an empty month or key range), not the end of the
    # data: NULL would silently drop the queries after it
    return(chunk_from_frame(frame, data$x, data$y, data$weights, what = "query"))
  } else if (data$in_worker) {
    frame <- with_db_connection(data, function(conn) DBI::dbGetQuery(conn, db_page_query(data, i)))
  } else {
    frame <- db_stream_chunk(data, i)
  }
  if (is.null(frame) || nrow(frame) == 0) return(NULL)
  chunk_from_frame(frame, data$x, data$y, data$weights, what = "query")
}

# Calls use(conn): in a worker with a connection of its own, closed after;
# in this process with the pass's connection (see db_connection()). In a
# worker, the connection's objects are collected before the chunk task
# ends: RSQLite's finalizers write .Random.seed (through Rcpp's RNG scope),
# and run at a later garbage collection, in future's own code after the
# task, they made future warn that the chunk's future "unexpectedly
# generated random numbers" (from the second fit of a session on). Within
# the task, run_chunk_task() puts the RNG state back. One collection per
# chunk read from a database: milliseconds, against the query's time.
with_db_connection <- function(data, use) {
  if (!data$in_worker) return(use(db_connection(data)))
  conn <- db_connect(data)
  on.exit({
    DBI::dbDisconnect(conn)
    rm(conn)
    gc(verbose = FALSE)
  })
  use(conn)
}

# The connection of this process: the user's, or one made by `connect`
# for the pass and kept until close_db_source().
db_connection <- function(data) {
  if (!is.null(data$conn)) {
    if (!DBI::dbIsValid(data$conn)) abort_arg("The connection has been closed.")
    return(data$conn)
  }
  stream <- data$stream
  if (is.null(stream$conn) || !DBI::dbIsValid(stream$conn)) stream$conn <- db_connect(data)
  stream$conn
}

db_connect <- function(data) {
  conn <- data$connect()
  if (!inherits(conn, "DBIConnection")) {
    abort_arg("{.arg conn} must return a {.pkg DBI} connection, not {.obj_type_friendly {conn}}.")
  }
  conn
}

# The next rows of the query's open result. Chunk 1 (or an earlier chunk
# than the last read) sends the query again; a later one skips the chunks
# between. The result is cleared when its rows run out (`done`).
db_stream_chunk <- function(data, i) {
  stream <- data$stream
  lost <- !isTRUE(stream$done) && (is.null(stream$result) || !DBI::dbIsValid(stream$result))
  if (i == 1 || is.null(stream$next_chunk) || i < stream$next_chunk || lost) {
    clear_db_result(stream)
    # connected first: a function `conn` loads the driver's package (its S4
    # methods) on its first call, which dbSendQuery()'s dispatch, already
    # under way, would not see
    conn <- db_connection(data)
    stream$result <- DBI::dbSendQuery(conn, data$source[[1]])
    stream$next_chunk <- 1
    stream$done <- FALSE
  }
  repeat {
    if (stream$done) return(NULL)
    frame <- DBI::dbFetch(stream$result, n = data$chunk_size)
    stream$next_chunk <- stream$next_chunk + 1
    if (nrow(frame) == 0 || DBI::dbHasCompleted(stream$result)) {
      clear_db_result(stream)
      stream$done <- TRUE
    }
    if (stream$next_chunk > i) return(frame)
  }
}

clear_db_result <- function(stream) {
  if (!is.null(stream$result) && DBI::dbIsValid(stream$result)) DBI::dbClearResult(stream$result)
  stream$result <- NULL
}

# After a pass over the data (complete or not): the open result is cleared
# and a connection kitchen made is closed; the user's stays open.
close_db_source <- function(data) {
  stream <- data$stream
  if (is.null(stream)) return(invisible())
  try(clear_db_result(stream), silent = TRUE)
  stream$next_chunk <- NULL
  if (!is.null(stream$conn)) {
    try(DBI::dbDisconnect(stream$conn), silent = TRUE)
    stream$conn <- NULL
  }
  invisible()
}

# Chunk i of one query, as a query of its own (for a worker).
db_page_query <- function(data, i) {
  query <- sub("[;[:space:]]+$", "", data$source[[1]])
  sprintf("SELECT * FROM (%s) AS kitchen_rows LIMIT %s OFFSET %s", query,
          format(data$chunk_size, scientific = FALSE),
          format((i - 1) * data$chunk_size, scientific = FALSE))
}

# What a future needs: the function that connects (a connection cannot
# travel), and no state of this process.
db_source_for_worker <- function(data) {
  if (is.null(data$connect)) {
    abort_arg(c("A database source with a connection object cannot be read by futures: a connection does not travel to other R processes.",
                i = "Give {.arg conn} as a function that connects, {.code chunked_db(function() DBI::dbConnect(...), query)}, or use {.code parallel = \"none\"}."),
              call = NULL)
  }
  data$stream <- NULL
  data$in_worker <- TRUE
  data
}

# Where chunk i comes from, for error messages.
db_chunk_where <- function(data, i) {
  if (length(data$source) > 1) return(sprintf(" (query %d)", i))
  first <- (i - 1) * data$chunk_size + 1
  sprintf(" (rows %s to %s of the query)", format_count(first),
          format_count(first + data$chunk_size - 1))
}

db_print_fields <- function(data) {
  queries <- length(data$source)
  c(source = if (queries > 1) sprintf("%d database queries, one chunk each", queries) else
      sprintf("database query, %s rows a chunk", format_count(data$chunk_size)),
    query = if (queries == 1) db_query_label(data$source),
    connection = if (!is.null(data$conn)) class(data$conn)[[1]] else
      "made by a function (one per pass, one per future)",
    response = if (is.null(data$y)) "none" else sprintf("column \"%s\"", data$y),
    weights = if (!is.null(data$weights)) sprintf("column \"%s\"", data$weights),
    predictors = if (is.null(data$x)) "all other columns" else paste(data$x, collapse = ", "))
}

db_query_label <- function(query) {
  query <- gsub("[[:space:]]+", " ", trimws(query))
  if (nchar(query) > 60) paste0(substr(query, 1, 57), "...") else query
}
