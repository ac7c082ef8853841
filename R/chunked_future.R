# Running a task on every chunk: in this process, or as futures.
#
# A task is f(chunk, i, args) -> a small value (partial sums, predictions).
# run_chunk_task() reads chunk i and applies it, returning the value or the
# error (never raising it), so that in a worker and in-process alike the main
# process turns a failure into the same error naming the chunk.

# Whether chunks go to futures: "none" never, "future" always (even under
# plan(sequential): the same mechanics, in-process), "auto" when a plan
# other than sequential is set. `backend`: the calling process's
# (backend_settings() of n_threads); its SIMD, BLAS and LAPACK choices go
# with every task, in this process or to the workers.
chunk_engine <- function(parallel, n_threads, backend, call = rlang::caller_env()) {
  parallel <- match_choice(parallel, c("auto", "future", "none"), call = call)
  use_future <- switch(parallel,
    none = FALSE,
    auto = future_plan_set(),
    future = {
      if (!requireNamespace("future", quietly = TRUE)) {
        abort_arg(c("{.code parallel = \"future\"} needs the {.pkg future} package.",
                    i = "Install it with {.code install.packages(\"future\")}, or use {.code parallel = \"auto\"}."),
                  call = call)
      }
      TRUE
    })
  if (!use_future) return(list(future = FALSE, backend = backend))
  workers <- future::nbrOfWorkers()
  # Several workers usually share a machine: one thread each unless asked.
  # NULL lets a lone worker use its own default (task_backend()).
  backend["n_threads"] <- list(if (!is.null(n_threads)) n_threads else if (workers > 1) 1L)
  list(future = TRUE, backend = backend,
       window = if (is.finite(workers)) max(1L, as.integer(workers)) else 16L)
}

# A chunk task's backend: its engine's, with the threads resolved where the
# task runs (a worker's own default when the engine left them NULL).
task_backend <- function(backend) {
  backend$n_threads <- resolve_threads(backend$n_threads)
  backend
}

# No plan set is the same as plan(sequential). future's namespace is only
# looked at when loaded (plan() loads it) or when a plan is set by option.
future_plan_set <- function() {
  wanted <- isNamespaceLoaded("future") || !is.null(getOption("future.plan")) ||
    nzchar(Sys.getenv("R_FUTURE_PLAN"))
  wanted && requireNamespace("future", quietly = TRUE) &&
    !inherits(future::plan("next"), "sequential")
}

# Reads chunk i (NULL past the end) and applies `task`; returns
# list(end = TRUE), list(value = ...) or list(error = <condition>, what = ...),
# or list(empty = TRUE) for a chunk of no rows when `skip_empty`.
# In a worker (`in_future`), the RNG state is put back as it was: chunk
# sources are deterministic by contract, and future flags any change.
run_chunk_task <- function(data, i, task, args, in_future = FALSE, skip_empty = FALSE) {
  if (in_future) {
    seed <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
    on.exit(if (is.null(seed)) {
      suppressWarnings(rm(".Random.seed", envir = globalenv()))
    } else assign(".Random.seed", seed, envir = globalenv()))
  }
  failed <- function(what) function(e) {
    if (in_future) e$trace <- NULL  # backtraces of the worker mean nothing here
    list(error = e, what = what)
  }
  chunk <- tryCatch(chunk_read_raw(data, i), error = failed("could not be read"))
  if (!is.null(chunk$error)) return(chunk)
  if (is.null(chunk)) return(list(end = TRUE))
  if (skip_empty && chunk_is_empty(chunk)) return(list(empty = TRUE))
  what <- args$what
  args$what <- NULL
  tryCatch(list(value = do.call(task, c(list(chunk, i), args))), error = failed(what))
}

# The error of a failed chunk, raised in the main process, naming the chunk.
raise_chunk_error <- function(data, i, out, call) {
  with_chunk(data, i, out$what, call = call, stop(out$error))
}

# A chunk of no rows: x with none (a file of a header alone, a query or a
# filter that matched nothing), and no responses or weights either.
chunk_is_empty <- function(chunk) {
  length(dim(chunk$x)) == 2 && dim(chunk$x)[[1]] == 0 && NROW(chunk$y) == 0 &&
    length(chunk$weights) == 0
}

# Applies `task` (the name of a kitchen function) to every chunk and hands
# each value to consume(value, i) in chunk order, whatever the engine;
# returns the number of chunks, with the numbers of those skipped as empty
# (`skip_empty`: chunks of no rows hold no data to fit or summarise, so
# the task is not run on them) as attribute "empty".
# `args$what` says what failed ("holds bad data", ...).
for_each_chunk_task <- function(data, task, args, consume, engine, verbose, call,
                                label = "Reading chunks", skip_empty = TRUE) {
  # cli clears the bar from an exit handler of this frame: the handlers
  # below are added to it, not put in its place.
  if (verbose) cli::cli_progress_bar(label, total = n_chunks(data), clear = TRUE)
  args$backend <- engine$backend
  fetch <- if (engine$future) future_fetcher(data, task, args, engine$window, skip_empty) else
    function(i) run_chunk_task(data, i, get(task, mode = "function"), args,
                               skip_empty = skip_empty)
  interrupted <- FALSE
  on.exit(if (!is.null(attr(fetch, "drain"))) attr(fetch, "drain")(interrupted), add = TRUE)
  on.exit(close_chunk_source(data), add = TRUE)
  i <- 1
  empty <- integer(0)
  withCallingHandlers(repeat {
    out <- fetch(i)
    if (isTRUE(out$end)) break
    if (!is.null(out$error)) raise_chunk_error(data, i, out, call)
    if (isTRUE(out$empty)) empty <- c(empty, i) else consume(out$value, i)
    if (verbose) cli::cli_progress_update()
    i <- i + 1
  }, interrupt = function(cnd) interrupted <<- TRUE)
  structure(i - 1, empty = empty)
}

# fetch(i) for chunks processed as futures, asked for in order 1, 2, ...:
# futures are submitted `window` ahead and collected in order, so that at
# most `window` results (one per worker) wait in memory besides the one
# being reduced. attr "drain" collects what is left (after the end of a
# function source, or an error) so that no worker stays busy.
future_fetcher <- function(data, task, args, window, skip_empty = FALSE) {
  total <- n_chunks(data)
  pending <- list()        # futures by chunk number (as names)
  submitted <- 0
  ended <- FALSE           # a chunk past the end was seen
  shipped <- source_globals(data)
  submit <- function(j) {
    # One global: the job. Namespace functions are found by name in the
    # worker rather than shipped (shipping them made each future ~0.3 s
    # slower on this project's machine).
    job <- list(data = chunk_for_worker(data, j), i = j, task = task, args = args,
                skip_empty = skip_empty)
    future::future(quote(utils::getFromNamespace("run_chunk_job", "kitchen")(.kitchen_job)),
                   substitute = FALSE, globals = c(list(.kitchen_job = job), shipped$globals),
                   packages = unique(c("kitchen", shipped$packages)),
                   label = sprintf("kitchen-chunk-%d", j))
  }
  collect <- function(f) {
    tryCatch(future::value(f), error = function(e) {
      list(error = e, what = "could not be processed by its future worker")
    })
  }
  fetch <- function(i) {
    while (!ended && submitted < i + window - 1 && (is.na(total) || submitted < total)) {
      submitted <<- submitted + 1
      pending[[as.character(submitted)]] <<- submit(submitted)
    }
    key <- as.character(i)
    if (is.null(pending[[key]])) return(list(end = TRUE))
    out <- collect(pending[[key]])
    pending[[key]] <<- NULL
    if (isTRUE(out$end)) ended <<- TRUE
    out
  }
  attr(fetch, "drain") <- function(interrupted = FALSE) {
    if (interrupted && length(pending)) {
      # An interrupted value() leaves a worker's connection mid-message: a
      # value() now would wait for ever (a second Ctrl-C), and the plan's
      # workers would fail the next call. They are shut down instead (the
      # plan makes new ones at its next future).
      pending <<- list()
      restart_plan_workers()
      return(invisible())
    }
    for (f in pending) try(future::value(f), silent = TRUE)
    pending <<- list()
  }
  fetch
}

# The plan set again after sequential(): its workers are shut down, and the
# plan makes new ones at its next future, as after a plan() call of the
# user's.
restart_plan_workers <- function() {
  current <- future::plan("list")
  future::plan(future::sequential)
  future::plan(current)
  cli::cli_inform(c("i" = "Interrupted: the future plan's workers were shut down (they were left in the middle of a chunk); new ones start at the next call."))
}

# The job of a future, in the worker; `task` is the name of a kitchen
# function.
run_chunk_job <- function(job) {
  run_chunk_task(job$data, job$i, get(job$task, mode = "function"), job$args, in_future = TRUE,
                 skip_empty = isTRUE(job$skip_empty))
}

# What a worker needs to read chunk i: for a list source, that chunk only
# (the others left NULL, so chunk numbers keep their meaning); a function
# with its environment; files by their paths; a database source with the
# function that connects (R/source_dbi.R).
chunk_for_worker <- function(data, i) {
  if (data$kind == "database") return(db_source_for_worker(data))
  if (data$kind == "list") {
    source <- vector("list", length(data$source))
    source[i] <- data$source[i]
    data$source <- source
  }
  data
}

# A function source (or a database source's function that connects)
# travels with its environment, but what it finds in the global environment
# (variables, helper functions) does not: those are found as future finds
# globals, and shipped as globals of each future.
source_globals <- function(data) {
  fn <- switch(data$kind, "function" = data$source, database = data$connect)
  if (is.null(fn)) return(list(globals = list(), packages = NULL))
  env <- new.env(parent = globalenv())
  env$source_fn <- fn
  found <- future::getGlobalsAndPackages(quote(source_fn(1L)), envir = env, globals = TRUE)
  names <- setdiff(names(found$globals), "source_fn")
  names <- names[vapply(names, found_in_global, TRUE, env = environment(fn))]
  list(globals = as.list(found$globals)[names], packages = found$packages)
}

# Whether `name`, looked up from `env`, is found in the global environment.
found_in_global <- function(name, env) {
  while (!identical(env, globalenv())) {
    if (identical(env, emptyenv()) || isNamespace(env) ||
        exists(name, envir = env, inherits = FALSE)) return(FALSE)
    env <- parent.env(env)
  }
  exists(name, envir = env, inherits = FALSE)
}
