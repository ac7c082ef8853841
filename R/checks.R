# Argument checks shared by the exported functions. Each fails with a message
# that names the argument (as the caller wrote it) and says what it must be.

abort_arg <- function(message, ..., call = rlang::caller_env(),
                      .envir = parent.frame()) {
  cli::cli_abort(message, ..., class = "kitchen_error_argument",
                 call = call, .envir = .envir)
}

check_flag <- function(x, arg = rlang::caller_arg(x),
                       call = rlang::caller_env()) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_arg("{.arg {arg}} must be {.code TRUE} or {.code FALSE}, not {.obj_type_friendly {x}}.",
              call = call)
  }
  invisible(x)
}

# A count: one whole number >= `min` (and <= `max`), not NA.
check_count <- function(x, min = 1, max = Inf, arg = rlang::caller_arg(x),
                        call = rlang::caller_env()) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) ||
      x != trunc(x) || x < min || x > max) {
    range <- if (is.finite(max)) paste("from", min, "to", max) else paste(">=", min)
    abort_arg("{.arg {arg}} must be a whole number {range}, not {shown_value(x)}.", call = call)
  }
  invisible(x)
}

# Numeric data must be free of NA, NaN and Inf; the message says where.
check_finite <- function(x, arg = rlang::caller_arg(x),
                         call = rlang::caller_env()) {
  if (first_nonfinite_cpp(x) > 0) abort_nonfinite(x, arg = arg, call = call)
  invisible(x)
}

abort_nonfinite <- function(x, arg = rlang::caller_arg(x),
                            call = rlang::caller_env()) {
  bad <- first_nonfinite_cpp(x)
  value <- x[[bad]]
  abort_arg(c("{.arg {arg}} must not contain NA, NaN or infinite values.",
              x = "{element_label(x, bad)} is {.val {value}}."),
            call = call)
}

# The same for a dgCMatrix, whose stored values are checked: the row and
# column of the first bad one, not its position among them.
check_finite_sparse <- function(x, arg, call) {
  bad <- first_nonfinite_cpp(x@x)
  if (bad == 0) return(invisible(x))
  column <- findInterval(bad - 1, x@p)  # stored values of column j: p[j] + 1 .. p[j + 1]
  at <- (column - 1) * as.double(nrow(x)) + x@i[bad] + 1
  value <- x@x[[bad]]
  abort_arg(c("{.arg {arg}} must not contain NA, NaN or infinite values.",
              x = "{element_label(x, at)} is {.val {value}}."),
            call = call)
}

# Where element `i` of x (1-based, column-major) is, in the user's terms: the
# row and column of a matrix (by name when it has names), else its position.
element_label <- function(x, i) {
  dims <- dim(x)
  if (length(dims) != 2L) return(sprintf("Element %s", format(i, scientific = FALSE)))
  row <- (i - 1) %% dims[1] + 1
  col <- (i - 1) %/% dims[1] + 1
  row_name <- rownames(x)[row]
  col_name <- colnames(x)[col]
  sprintf("Row %s, column %s",
          if (is.null(row_name) || is.na(row_name) || !nzchar(row_name)) format(row, scientific = FALSE)
          else sprintf("%s (\"%s\")", format(row, scientific = FALSE), row_name),
          if (is.null(col_name) || is.na(col_name) || !nzchar(col_name)) col
          else sprintf("%d (\"%s\")", col, col_name))
}

# Columns `j` (1-based) of data with column names `names` (or NULL), as
# element_label() names them: 2 ("b").
column_labels <- function(j, names) {
  if (is.null(names)) return(as.character(j))
  ifelse(is.na(names[j]) | !nzchar(names[j]), as.character(j), sprintf("%d (\"%s\")", j, names[j]))
}

# One positive, finite number.
check_positive <- function(x, arg = rlang::caller_arg(x),
                           call = rlang::caller_env()) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x <= 0) {
    abort_arg("{.arg {arg}} must be a positive number, not {shown_value(x)}.",
              call = call)
  }
  invisible(x)
}

# A refused value as an error shows it, ready to paste into a message: a
# few values as cli shows them (numbers and NA unquoted: `not -1`, `not 4
# and 8`; strings quoted), anything else described (`not NULL`, `not an
# empty numeric vector`, `not a numeric vector of length 12`, `not a list`).
shown_value <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.atomic(x) && is.null(dim(x)) && length(x) %in% 1:4) {
    return(cli::format_inline("{.val {x}}"))
  }
  type <- if (is.factor(x)) "factor" else if (is.double(x)) "numeric" else typeof(x)
  if (is.atomic(x) && length(x) == 0L) return(paste("an empty", type, "vector"))
  what <- if (is.atomic(x) && is.null(dim(x))) {
    sprintf("%s vector of length %d", type, length(x))
  } else if (is.data.frame(x)) {
    "data frame"
  } else if (is.matrix(x)) {
    "matrix"
  } else {
    class(x)[[1]]
  }
  paste(if (grepl("^[aeiou]", what)) "an" else "a", what)
}

# One of `values` (as match.arg() would, but with kitchen's error class);
# the whole vector, an untouched default, means its first value.
match_choice <- function(x, values, arg = rlang::caller_arg(x), call = rlang::caller_env()) {
  if (identical(x, values)) return(values[[1]])
  if (is.character(x) && length(x) == 1L && !is.na(x) && nzchar(x) && !x %in% values) {
    # a unique abbreviation, as match.arg() takes it (type = "resp")
    hit <- pmatch(x, values)
    if (!is.na(hit)) return(values[[hit]])
  }
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% values) {
    abort_arg("{.arg {arg}} must be one of {.or {.val {values}}}, not {shown_value(x)}.", call = call)
  }
  x
}

# The largest dense double matrix kitchen allocates, in entries: what an R
# matrix allocated from C holds (17 GB). Larger requests are refused up
# front with the memory they would need.
max_dense_entries <- 2^31 - 1

gigabytes <- function(entries) format(entries * 8 / 1e9, digits = 3)
