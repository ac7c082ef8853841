# The response's coding, one for every fit: numbers as a matrix, classes as
# indicators (+1 / -1 in the fit), for in-memory data at once and for
# chunked data chunk by chunk.

# The response of an in-memory fit as a numeric n x k matrix, with how to
# map predictions back: numbers as they are; classes (a factor) as +1 / -1
# indicators in the order of the levels, the coding chunked fits reach
# from the same 0/1 indicators. Character labels are refused here (the
# formula method makes them a factor): numbers read as text would
# otherwise become as many classes.
krr_response <- function(y, n, weights = NULL, call = rlang::caller_env()) {
  if (!is.factor(y) && !((is.double(y) || is.integer(y)) && !is.object(y) && length(dim(y)) <= 2L)) {
    hint <- if (is.character(y) || is.logical(y)) {
      c(i = "For classes, give {.code factor(y)}.")
    } else if (is.data.frame(y)) {
      c(i = "Give a column ({.code y[[1]]}), or {.code as.matrix(y)} for several responses.")
    }
    abort_arg(c("{.arg y} must be a numeric vector or matrix, or a factor for classification, not {.obj_type_friendly {y}}.",
                hint), call = call)
  }
  coded <- chunk_response(y, n, weights, call)
  state <- coded$state
  if (!identical(state$type, "class")) {
    return(list(y = coded$y, type = state$type, levels = NULL, names = state$names,
                weighted = state$weighted))
  }
  state <- class_levels(state, call, where = "")
  y <- 2 * coded$y[, match(state$levels, state$seen), drop = FALSE] - 1
  colnames(y) <- state$levels
  list(y = y, type = "class", levels = state$levels, names = state$levels,
       weighted = state$weighted, ordered = state$ordered, factor_levels = state$factor_levels)
}

# A response (all of it, or a chunk's) as a matrix, with its coding state:
# numeric responses their column count; class labels as 0/1 indicators of
# the classes present, in order of appearance. Chunked fits place them
# among all classes seen (merge_response()) and turn them into the +1 / -1
# coding after the pass, when all are known (class_statistics()); in
# memory, krr_response() does so at once. A class is seen in rows of
# non-zero weight (`weights`, checked) only: rows weighted 0 take no part in
# the fit, so a class that has no others is a class without rows (their
# indicators are all 0).
chunk_response <- function(y, n, weights = NULL, call = rlang::caller_env()) {
  if (is.factor(y) || is.character(y)) {
    labels <- as.character(y)
    if (anyNA(labels)) abort_arg("{.arg y} must not contain NA values.", call = call)
    seen <- unique(if (is.null(weights) || length(labels) != n) labels else labels[weights > 0])
    state <- list(type = "class", kind = if (is.factor(y)) "factor" else "character",
                  factor_levels = if (is.factor(y)) levels(y), ordered = is.ordered(y), seen = seen,
                  present = unique(labels), weighted = !is.null(weights))
    y <- 1 * outer(match(labels, seen, nomatch = 0L), seq_along(seen), "==")
  } else {
    if (!(is.double(y) || is.integer(y)) || is.object(y) || length(dim(y)) > 2L) {
      abort_arg("{.arg y} must be a numeric vector or matrix, or a factor or character vector of classes, not {.obj_type_friendly {y}}.",
                call = call)
    }
    y <- as.matrix(y)
    storage.mode(y) <- "double"
    check_finite(y, arg = "y", call = call)
    state <- list(type = if (ncol(y) == 1) "vector" else "matrix", levels = NULL,
                  names = colnames(y), k = ncol(y), weighted = !is.null(weights))
  }
  if (nrow(y) != n) {
    abort_arg("{.arg y} must have one value per row of {.arg x} ({n}), not {nrow(y)}.", call = call)
  }
  if (ncol(y) == 0 && state$type != "class") {
    abort_arg("{.arg y} must have at least one column.", call = call)
  }
  list(y = y, state = state)
}

# The response state after one more chunk (checked against chunk 1's), and
# where the chunk's response columns go.
merge_response <- function(state, part) {
  if (is.null(state)) return(list(state = part, columns = seq_len(response_width(part))))
  state$weighted <- state$weighted || part$weighted  # for print(): some chunk had weights
  if (identical(part$type, "class")) {
    if (!identical(state$type, "class") || state$kind != part$kind) {
      abort_arg("{.arg y} must be of the same kind in every chunk: this one holds {response_kind(part)}, chunk 1 {response_kind(state)}.")
    }
    # Levels combined as c() combines factors (in order of appearance): a
    # chunk of files split by class may lack some.
    if (part$kind == "factor") state$factor_levels <- union(state$factor_levels, part$factor_levels)
    state$ordered <- isTRUE(state$ordered) && isTRUE(part$ordered)
    state$seen <- union(state$seen, part$seen)
    state$present <- union(state$present, part$present)
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

# Classes of a factor response without a row (or whose rows all have
# weight 0) are left out of the fit, as
# ranger and nnet::multinom() do, but said: the fit can never predict them,
# and predict(type = "prob") has no column for them.
warn_empty_classes <- function(empty, after, call) {
  if (!length(empty)) return(invisible())
  cli::cli_warn(c("{length(empty)} class{?es} of {.arg y} ha{?s/ve} no rows{after} and {cli::qty(length(empty))}{?is/are} left out of the fit: {.val {empty}}.",
                  i = "The fit cannot predict {cli::qty(length(empty))}{?it/them}, and {.code predict(type = \"prob\")} gives no column for {?it/them}."),
                call = call)
}

# The classes, ordered as droplevels() (factors) or factor() (character
# labels) would order them in memory.
class_levels <- function(response, call, where = " over all chunks") {
  levels <- if (response$kind == "factor") {
    response$factor_levels[response$factor_levels %in% response$seen]
  } else sort(response$seen)
  weighted_out <- setdiff(response$present, response$seen)  # rows of weight 0 only
  empty <- if (response$kind == "factor") setdiff(response$factor_levels, levels) else weighted_out
  warn_empty_classes(empty, if (length(weighted_out)) " of non-zero weight" else "", call)
  if (length(levels) < 2) {
    abort_arg("{.arg y} must have at least two classes{where}, not {length(levels)}.",
              call = call)
  }
  response$levels <- response$names <- levels
  response
}
