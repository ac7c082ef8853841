# A dgCMatrix whose slots disagree (edited, or read from a broken file) is
# refused with an error naming the argument, before anything (Matrix's own
# t() and as.matrix() included) indexes with its slots. These once crashed
# R or read and wrote out of bounds.

set.seed(1)
x <- matrix(rnorm(40 * 3), 40, 3)
x[abs(x) < 0.6] <- 0
good <- Matrix::Matrix(x, sparse = TRUE)
y <- rnorm(40)
rff_map <- rff(3, 20, sigma = 1, seed = 1)
ff_map <- fastfood(3, 20, sigma = 1, seed = 1)
bin_map <- rbin(good, 10, sigma = 1, seed = 1, n_threads = 1)

edit_slot <- function(m, slot, value) {
  methods::slot(m, slot, check = FALSE) <- value
  m
}
malformed <- list(
  "huge row index" = edit_slot(good, "i", replace(good@i, 1, 2000000000L)),
  "row index one past the end" = edit_slot(good, "i", replace(good@i, 1, 40L)),
  "negative row index" = edit_slot(good, "i", replace(good@i, 2, -1L)),
  "x a value short" = edit_slot(good, "x", good@x[-1]),
  "i a value short" = edit_slot(good, "i", good@i[-length(good@i)]),
  "p decreasing" = edit_slot(good, "p", replace(good@p, 2, good@p[3] + 1L)),
  "p past the end" = edit_slot(good, "p", replace(good@p, 4, good@p[4] + 5L)),
  "p not from 0" = edit_slot(good, "p", good@p + 1L),
  "p short" = edit_slot(good, "p", good@p[-4]),
  "i unsorted in a column" = edit_slot(good, "i", replace(good@i, 1:2, good@i[2:1])),
  "i double" = edit_slot(good, "i", as.double(good@i)),
  "x integer" = edit_slot(good, "x", as.integer(round(good@x))),
  "Dim negative" = edit_slot(good, "Dim", c(-40L, 3L))
)

test_that("each malformed matrix really is invalid, and the well-formed one works", {
  for (name in names(malformed)) {
    expect_false(isTRUE(methods::validObject(malformed[[name]], test = TRUE)), label = name)
  }
  expect_equal(predict(rff_map, good, n_threads = 1), predict(rff_map, x, n_threads = 1))
})

test_that("every function taking sparse data refuses malformed slots, naming the argument", {
  for (name in names(malformed)) {
    bad <- malformed[[name]]
    calls <- list(
      rff = quote(rff(bad, 10)),
      fastfood = quote(fastfood(bad, 8)),
      rbin = quote(rbin(bad, 5)),
      kernel_matrix = quote(kernel_matrix(bad)),
      kernel_matrix_y = quote(kernel_matrix(good, bad)),
      predict_rff = quote(predict(rff_map, bad)),
      predict_fastfood = quote(predict(ff_map, bad)),
      predict_rbin = quote(predict(bin_map, bad)),
      krr_fit = quote(krr_fit(bad, y, rff_map, lambda = 1)))
    for (fun in names(calls)) {
      err <- tryCatch(eval(calls[[fun]]), error = function(e) e)
      expect_s3_class(err, "kitchen_error_argument")
      expect_match(conditionMessage(err), "malformed dgCMatrix", label = paste(fun, name))
      expect_match(conditionMessage(err), "`(bad|newdata|x|y)`", label = paste(fun, name))
    }
  }
})

test_that("the C++ glue checks the slots itself when R's checks are bypassed", {
  for (name in names(malformed)) {
    bad <- malformed[[name]]
    expect_type(kitchen:::rff_features_cpp(bad, rff_map$projection, rff_map$center, NULL, "cos_sin",
                                           FALSE, 1L, "scalar"), "character")
    expect_type(kitchen:::rbin_columns_cpp(bad, bin_map$pitch, bin_map$shift, bin_map$center,
                                           bin_map$scale, bin_map$keys, bin_map$n_bins, 0, 1L, "scalar"),
                "character")
    expect_type(kitchen:::rbin_build_cpp(bad, bin_map$pitch, bin_map$shift, bin_map$center,
                                         bin_map$scale, 1L, "scalar"), "character")
    expect_type(kitchen:::fastfood_features_cpp(bad, TRUE, fastfood(40, 8, sigma = 1, seed = 1),
                                                rep(0, 40), rep(1, 40), FALSE, 1L, "scalar"),
                "character")
  }
})

test_that("Nystroem maps, FALKON, logistic fits and chunked sources refuse malformed slots too", {
  nys_map <- nystrom(x, 10, sigma = 1, seed = 1)
  fit <- krr_fit(good, y, rff_map, lambda = 1, n_threads = 1)
  classes <- factor(y > 0)
  for (name in names(malformed)) {
    bad <- malformed[[name]]
    calls <- list(
      nystrom = quote(nystrom(bad, 5)),
      predict_nystrom = quote(predict(nys_map, bad)),
      krr_fit_nystrom = quote(krr_fit(bad, y, nys_map, lambda = 1)),
      falkon = quote(krr_fit(bad, y, nys_map, lambda = 1, solver = "falkon")),
      logistic = quote(krr_fit(bad, classes, rff_map, loss = "logistic", lambda = 1)),
      kernel_ridge_fit = quote(kernel_ridge_fit(bad, y, penalty = 1, rbf_sigma = 1, num_features = 10)))
    for (fun in names(calls)) {
      err <- tryCatch(eval(calls[[fun]]), error = function(e) e)
      expect_s3_class(err, "kitchen_error_argument")
      expect_match(conditionMessage(err), "malformed dgCMatrix", label = paste(fun, name))
    }
    # chunked data: the error names the chunk, its parent the slots
    chunked_calls <- list(
      fit = quote(krr_fit(chunked(list(list(x = good, y = y), list(x = bad, y = y))), rff_map,
                          lambda = 1)),
      fit_rbin = quote(krr_fit(chunked(list(list(x = bad, y = y))), bin_map, lambda = 1)),
      fit_logistic = quote(krr_fit(chunked(list(list(x = bad, y = classes))), rff_map,
                                   loss = "logistic", lambda = 1)),
      predict = quote(predict(fit, chunked(list(list(x = bad))))))
    for (fun in names(chunked_calls)) {
      err <- tryCatch(eval(chunked_calls[[fun]]), error = function(e) e)
      expect_s3_class(err, "kitchen_error_argument")
      expect_match(conditionMessage(err), "Chunk [12]", label = paste(fun, name))
      expect_match(conditionMessage(err$parent), "malformed dgCMatrix", label = paste(fun, name))
    }
  }
})
