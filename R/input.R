# Turning what users pass as data into what the C++ side reads: a double
# matrix with rows as observations, checked for shape and finiteness.

# x: a numeric matrix, a data frame of numeric columns, or (when
# `allow_sparse`) a Matrix::dgCMatrix, which is returned as is; other
# sparse matrices (triplet or row-compressed, logical or pattern, symmetric
# or triangular: a bag of words often comes as one) become the dgCMatrix
# they equal. `allow_empty`: zero rows are data (new rows to predict), not
# an error.
as_data_matrix <- function(x, allow_sparse = FALSE, arg = rlang::caller_arg(x),
                           call = rlang::caller_env(), allow_empty = FALSE) {
  if (allow_sparse && inherits(x, "sparseMatrix") && !inherits(x, "dgCMatrix")) {
    force(arg)  # names the caller's expression before x is replaced
    x <- methods::as(methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix")
  }
  if (allow_sparse && inherits(x, "dgCMatrix")) {
    # Before anything (Matrix included) indexes with the slots.
    problem <- sparse_problem_cpp(x)
    if (!is.null(problem)) {
      abort_arg(c("{.arg {arg}} is a malformed dgCMatrix ({.fn validObject} would fail).",
                  x = "{problem}."), call = call)
    }
    check_shape(dim(x), arg, call, allow_empty)
    check_finite_sparse(x, arg, call)  # R/checks.R
    return(x)
  }
  # `x` itself is never reassigned: `arg` (a promise until an error needs
  # it) names the caller's expression by looking at x.
  out <- x
  if (is.data.frame(x)) {
    check_shape(dim(x), arg, call, allow_empty)
    # (a file with a header and no rows reads as logical columns: no values)
    # (logical columns count as 0 / 1, as in a sparse logical matrix)
    numeric_cols <- vapply(x, function(col) {
      (is.double(col) || is.integer(col) || is.logical(col)) && !is.object(col)
    }, TRUE)
    if (!all(numeric_cols)) {
      bad <- names(x)[!numeric_cols]
      abort_arg(c("{.arg {arg}} must have only numeric columns.",
                  x = "Not numeric: {.val {bad}}."), call = call)
    }
    out <- as.matrix(x)
  }
  if (is.matrix(out) && is.logical(out)) storage.mode(out) <- "double"  # TRUE / FALSE as 1 / 0
  if (!is.matrix(out) || !(is.double(out) || is.integer(out))) {
    what <- if (allow_sparse) "a numeric matrix, a numeric data frame or a dgCMatrix" else
      "a numeric matrix or a numeric data frame"
    abort_arg("{.arg {arg}} must be {what}, not {.obj_type_friendly {out}}.", call = call)
  }
  check_shape(dim(out), arg, call, allow_empty)
  if (is.integer(out)) storage.mode(out) <- "double"
  check_finite(out, arg = arg, call = call)
  out
}

check_shape <- function(dims, arg, call, allow_empty = FALSE) {
  if (dims[1] < !allow_empty || dims[2] < 1) {
    what <- if (allow_empty) "at least one column" else "at least one row and one column"
    abort_arg("{.arg {arg}} must have {what}, not {dims[1]} x {dims[2]}.", call = call)
  }
}
