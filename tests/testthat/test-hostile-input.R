# A catalogue of bad inputs for every exported function: each must fail
# before any C++ runs, with kitchen's argument error class and a message
# that names the argument. Each row: a label, the call (quoted), and a
# pattern the message must match.

set.seed(1)
good_x <- matrix(rnorm(40 * 3), 40, 3, dimnames = list(NULL, c("a", "b", "c")))
good_y <- rnorm(40)
rff_map <- rff(good_x, 20, sigma = 1, seed = 1)
ff_map <- fastfood(good_x, 20, sigma = 1, seed = 1)
bin_map <- rbin(good_x, 10, sigma = 1, seed = 1)
fit <- krr_fit(good_x, good_y, rff_map, lambda = 1, n_threads = 1)
with_na <- good_x
with_na[2, 2] <- NA
with_nan <- good_x
with_nan[3, 1] <- NaN
with_inf <- good_x
with_inf[1, 3] <- Inf
char_matrix <- matrix(letters[1:6], 2, 3)
factor_frame <- data.frame(a = 1:4, b = factor(letters[1:4]))
sparse_na <- Matrix::Matrix(good_x, sparse = TRUE)
sparse_na@x[1] <- NA
tamper <- function(map, field, value) {
  map[field] <- list(value)
  map
}

catalogue <- list(
  # fwht()
  list("fwht: character", quote(fwht("a")), "x"),
  list("fwht: list", quote(fwht(list(1, 2))), "x"),
  list("fwht: NULL", quote(fwht(NULL)), "x"),
  list("fwht: factor", quote(fwht(factor(1:4))), "x"),
  list("fwht: length 3", quote(fwht(c(1, 2, 3))), "power of two"),
  list("fwht: empty", quote(fwht(numeric(0))), "power of two"),
  list("fwht: 3-d array", quote(fwht(array(1, c(2, 2, 2)))), "x"),
  list("fwht: NA", quote(fwht(c(1, NA, 3, 4))), "NA"),
  list("fwht: Inf", quote(fwht(c(1, Inf, 3, 4))), "NA"),
  list("fwht: normalize NA", quote(fwht(c(1, 2), normalize = NA)), "normalize"),
  list("fwht: normalize string", quote(fwht(c(1, 2), normalize = "yes")), "normalize"),
  list("fwht: n_threads 0", quote(fwht(c(1, 2), n_threads = 0)), "n_threads"),
  list("fwht: n_threads 1.5", quote(fwht(c(1, 2), n_threads = 1.5)), "n_threads"),
  list("fwht: n_threads -1", quote(fwht(c(1, 2), n_threads = -1)), "n_threads"),
  list("fwht: n_threads NA", quote(fwht(c(1, 2), n_threads = NA)), "n_threads"),
  # kernels
  list("gaussian: sigma 0", quote(kernel_gaussian(0)), "sigma"),
  list("gaussian: sigma -1", quote(kernel_gaussian(-1)), "sigma"),
  list("gaussian: sigma NA", quote(kernel_gaussian(NA)), "sigma"),
  list("gaussian: sigma Inf", quote(kernel_gaussian(Inf)), "sigma"),
  list("gaussian: sigma vector with a negative entry", quote(kernel_gaussian(c(1, -2))), "sigma"),
  list("gaussian: sigma string", quote(kernel_gaussian("1")), "sigma"),
  list("laplacian: sigma 0", quote(kernel_laplacian(0)), "sigma"),
  list("cauchy: sigma NULL", quote(kernel_cauchy(NULL)), "sigma"),
  list("matern: nu 0", quote(kernel_matern(1, nu = 0)), "nu"),
  list("matern: nu NA", quote(kernel_matern(1, nu = NA)), "nu"),
  list("matern: nu Inf", quote(kernel_matern(1, nu = Inf)), "nu"),
  list("matern: sigma -2", quote(kernel_matern(-2)), "sigma"),
  # kernel_matrix()
  list("kernel_matrix: character", quote(kernel_matrix(char_matrix)), "x"),
  list("kernel_matrix: NA", quote(kernel_matrix(with_na)), "x"),
  list("kernel_matrix: NaN", quote(kernel_matrix(with_nan)), "x"),
  list("kernel_matrix: Inf", quote(kernel_matrix(with_inf)), "x"),
  list("kernel_matrix: list", quote(kernel_matrix(list(1, 2))), "x"),
  list("kernel_matrix: NULL", quote(kernel_matrix(NULL)), "x"),
  list("kernel_matrix: zero rows", quote(kernel_matrix(matrix(0, 0, 3))), "x"),
  list("kernel_matrix: zero columns", quote(kernel_matrix(matrix(0, 3, 0))), "x"),
  list("kernel_matrix: y columns", quote(kernel_matrix(good_x, good_x[, 1:2])), "y"),
  list("kernel_matrix: y NA", quote(kernel_matrix(good_x, with_na)), "y"),
  list("kernel_matrix: bad kernel name", quote(kernel_matrix(good_x, kernel = "rbf")), "kernel"),
  list("kernel_matrix: kernel number", quote(kernel_matrix(good_x, kernel = 3)), "kernel"),
  list("kernel_matrix: tampered kernel", quote(kernel_matrix(good_x, kernel = tamper(kernel_gaussian(), "sigma", -1))), "kernel"),
  list("kernel_matrix: factor frame", quote(kernel_matrix(factor_frame)), "x"),
  list("kernel_matrix: 1e6 x 1e6", quote(kernel_matrix(matrix(0, 1e6, 1), matrix(0, 1e6, 1))), "GB|too large|entries"),
  list("kernel_matrix: n_threads 0", quote(kernel_matrix(good_x, n_threads = 0)), "n_threads"),
  # rff()
  list("rff: n_features 0", quote(rff(good_x, 0)), "n_features"),
  list("rff: n_features odd cos_sin", quote(rff(good_x, 11)), "n_features"),
  list("rff: n_features 2.5", quote(rff(good_x, 2.5)), "n_features"),
  list("rff: n_features NA", quote(rff(good_x, NA)), "n_features"),
  list("rff: n_features string", quote(rff(good_x, "10")), "n_features"),
  list("rff: sigma 0", quote(rff(good_x, 10, sigma = 0)), "sigma"),
  list("rff: sigma -1", quote(rff(good_x, 10, sigma = -1)), "sigma"),
  list("rff: sigma NaN", quote(rff(good_x, 10, sigma = NaN)), "sigma"),
  list("rff: type", quote(rff(good_x, 10, type = "sin")), "type"),
  list("rff: scale", quote(rff(good_x, 10, scale = "unit")), "scale"),
  list("rff: kernel", quote(rff(good_x, 10, kernel = "polynomial")), "kernel"),
  list("rff: unknown kernel parameter", quote(rff(good_x, 10, kernel = "gaussian", nu = 2)), "nu"),
  list("rff: x NA", quote(rff(with_na, 10)), "x"),
  list("rff: x Inf", quote(rff(with_inf, 10)), "x"),
  list("rff: x character", quote(rff(char_matrix, 10)), "x"),
  list("rff: x list", quote(rff(list(1, 2), 10)), "x"),
  list("rff: x NULL", quote(rff(NULL, 10)), "x"),
  list("rff: x factor frame", quote(rff(factor_frame, 10)), "x"),
  list("rff: x zero rows", quote(rff(matrix(0, 0, 3), 10)), "x"),
  list("rff: x sparse NA", quote(rff(sparse_na, 10)), "x"),
  list("rff: dimension 0", quote(rff(0, 10, sigma = 1)), "x"),
  list("rbin: x a vector", quote(rbin(c(1, 2, 3), 10)), "`x` must be a numeric matrix"),
  list("rbin: x a list", quote(rbin(list(1), 10)), "`x` must be a numeric matrix"),
  list("fastfood: x a vector", quote(fastfood(c(1, 2, 3), 10)), "`x` must be a numeric matrix"),
  list("rff: dimension 2.5", quote(rff(2.5, 10, sigma = 1)), "x"),
  list("rff: dimension without sigma", quote(rff(3, 10)), "sigma"),
  list("rff: spread overflows", quote(rff(cbind(c(1.7e308, -1.7e308)), 10)), "too large"),
  list("rbin: spread overflows", quote(rbin(cbind(c(1.7e308, -1.7e308, 1.7e308)), 10, sigma = 1, scale = "standard")), "too large"),
  list("rff: seed string", quote(rff(good_x, 10, seed = "a")), "seed"),
  list("rff: seed 1.5", quote(rff(good_x, 10, seed = 1.5)), "seed"),
  # predict() on an rff map
  list("rff predict: columns", quote(predict(rff_map, good_x[, 1:2])), "column"),
  list("rff predict: missing names", quote(predict(rff_map, `colnames<-`(good_x, c("a", "b", "z")))), "Missing|column"),
  list("rff predict: NA", quote(predict(rff_map, with_na)), "newdata"),
  list("rff predict: character", quote(predict(rff_map, char_matrix)), "newdata"),
  list("rff predict: n_threads 0", quote(predict(rff_map, good_x, n_threads = 0)), "n_threads"),
  list("rff predict: tampered projection", quote(predict(tamper(rff_map, "projection", 1), good_x)), "valid"),
  list("rff predict: tampered d", quote(predict(tamper(rff_map, "d", "3"), good_x)), "valid"),
  list("rff predict: tampered type", quote(predict(tamper(rff_map, "type", "other"), good_x)), "valid"),
  list("rff predict: missing center", quote(predict(tamper(rff_map, "center", NULL), good_x)), "valid"),
  # fastfood()
  list("fastfood: laplacian", quote(fastfood(good_x, 10, kernel = "laplacian")), "rff|rbin"),
  list("fastfood: cauchy", quote(fastfood(good_x, 10, kernel = "cauchy")), "rff|rbin"),
  list("fastfood: n_features 0", quote(fastfood(good_x, 0)), "n_features"),
  list("fastfood: sigma -1", quote(fastfood(good_x, 10, sigma = -1)), "sigma"),
  list("fastfood: x NA", quote(fastfood(with_na, 10)), "x"),
  list("fastfood: x character", quote(fastfood(char_matrix, 10)), "x"),
  list("fastfood predict: columns", quote(predict(ff_map, good_x[, 1:2])), "column"),
  list("fastfood predict: NaN", quote(predict(ff_map, with_nan)), "newdata"),
  list("fastfood predict: tampered perm", quote(predict(tamper(ff_map, "perm", ff_map$perm * 100L), good_x)), "valid"),
  list("fastfood predict: tampered signs", quote(predict(tamper(ff_map, "signs", NULL), good_x)), "valid"),
  # rbin()
  list("rbin: gaussian", quote(rbin(good_x, 10, kernel = "gaussian")), "kernel"),
  list("rbin: n_grids 0", quote(rbin(good_x, 0)), "n_grids"),
  list("rbin: n_grids NA", quote(rbin(good_x, NA)), "n_grids"),
  list("rbin: n_buckets -1", quote(rbin(good_x, 10, n_buckets = -1)), "n_buckets"),
  list("rbin: too many columns", quote(rbin(good_x, 1e5, n_buckets = 1e5)), "at most"),
  list("rbin: dimension, no buckets", quote(rbin(3, 10, sigma = 1)), "n_buckets"),
  list("rbin: x NA", quote(rbin(with_na, 10)), "x"),
  list("rbin: 1e9 grids", quote(rbin(good_x, 1e9)), "GB"),
  list("rff: 1e9 features", quote(rff(good_x, 1e9)), "GB"),
  list("rff: 1e9 features of a dimension", quote(rff(3, 1e9, sigma = 1)), "GB"),
  list("fastfood: 1e9 features", quote(fastfood(good_x, 1e9)), "GB"),
  list("rff: d x m frequencies", quote(rff(3e5, 2e4, sigma = 1)), "GB"),
  list("kitchen_threads: NA", quote(kitchen_threads(NA)), "n_threads"),
  list("rbin: x sparse NA", quote(rbin(sparse_na, 10)), "x"),
  list("rbin: sigma 0", quote(rbin(good_x, 10, sigma = 0)), "sigma"),
  list("rbin predict: columns", quote(predict(bin_map, good_x[, 1:2])), "column"),
  list("rbin predict: Inf", quote(predict(bin_map, with_inf)), "newdata"),
  list("rbin predict: shuffled keys", quote(predict(tamper(bin_map, "keys", rev(bin_map$keys)), good_x)), "valid"),
  list("rbin predict: negative pitch", quote(predict(tamper(bin_map, "pitch", -bin_map$pitch), good_x)), "valid"),
  list("rbin predict: missing n_bins", quote(predict(tamper(bin_map, "n_bins", NULL), good_x)), "valid"),
  # krr_fit()
  list("krr_fit: y length", quote(krr_fit(good_x, good_y[-1], rff_map)), "y"),
  list("krr_fit: y NA", quote(krr_fit(good_x, replace(good_y, 3, NA), rff_map)), "y"),
  list("krr_fit: y character", quote(krr_fit(good_x, letters[1:40], rff_map)), "y"),
  list("krr_fit: y one class", quote(krr_fit(good_x, factor(rep("a", 40)), rff_map)), "y"),
  list("krr_fit: y list", quote(krr_fit(good_x, as.list(good_y), rff_map)), "y"),
  list("krr_fit: x NA", quote(krr_fit(with_na, good_y, rff_map)), "x"),
  list("krr_fit: x character", quote(krr_fit(char_matrix, good_y[1:2], rff_map)), "x"),
  list("krr_fit: lambda -1", quote(krr_fit(good_x, good_y, rff_map, lambda = -1)), "lambda"),
  list("krr_fit: lambda 0", quote(krr_fit(good_x, good_y, rff_map, lambda = 0)), "lambda"),
  list("krr_fit: lambda NA", quote(krr_fit(good_x, good_y, rff_map, lambda = NA)), "lambda"),
  list("krr_fit: lambda string", quote(krr_fit(good_x, good_y, rff_map, lambda = "aic")), "lambda"),
  list("krr_fit: sigma -1", quote(krr_fit(good_x, good_y, rff_map, sigma = -1)), "sigma"),
  list("krr_fit: features name", quote(krr_fit(good_x, good_y, "fourier")), "features"),
  list("krr_fit: features number", quote(krr_fit(good_x, good_y, 3)), "features"),
  list("krr_fit: map of another dimension", quote(krr_fit(good_x[, 1:2], good_y, rff_map)), "column"),
  list("krr_fit: n_folds 1", quote(krr_fit(good_x, good_y, rff_map, lambda = "cv", n_folds = 1)), "n_folds"),
  list("krr_fit: n_folds > n", quote(krr_fit(good_x, good_y, rff_map, lambda = "cv", n_folds = 100)), "n_folds"),
  list("krr_fit: folds length", quote(krr_fit(good_x, good_y, rff_map, lambda = "cv", folds = 1:3)), "folds"),
  list("krr_fit: block_size 0", quote(krr_fit(good_x, good_y, rff_map, block_size = 0)), "block_size"),
  list("krr_fit: verbose NA", quote(krr_fit(good_x, good_y, rff_map, verbose = NA)), "verbose"),
  list("krr_fit: n_threads 0", quote(krr_fit(good_x, good_y, rff_map, n_threads = 0)), "n_threads"),
  list("krr_fit: Z'Z of D = 500000", quote(withr_options(list(kitchen.dual = FALSE),
       krr_fit(good_x, good_y, rff(3, 500000, sigma = 1)))), "GB"),
  list("krr_fit: tol 0", quote(krr_fit(good_x, good_y, bin_map, lambda = 1, tol = 0)), "tol"),
  list("krr_fit: max_iter 0", quote(krr_fit(good_x, good_y, bin_map, lambda = 1, max_iter = 0)), "max_iter"),
  list("krr_fit: tampered rbin map", quote(krr_fit(good_x, good_y, tamper(bin_map, "shift", NULL), lambda = 1)), "valid"),
  # predict() on a fit
  list("krr predict: columns", quote(predict(fit, good_x[, 1:2])), "column"),
  list("krr predict: NA", quote(predict(fit, with_na)), "newdata"),
  list("krr predict: class on regression", quote(predict(fit, good_x, type = "class")), "class"),
  list("krr predict: type", quote(predict(fit, good_x, type = "link")), "type"),
  list("krr predict: block_size 0", quote(predict(fit, good_x, block_size = 0)), "block_size"),
  # threads and SIMD settings
  list("kitchen_threads: 0", quote(kitchen_threads(0)), "n_threads"),
  list("kitchen_threads: string", quote(kitchen_threads("two")), "n_threads"),
  list("option kitchen.threads", quote(withr_options(list(kitchen.threads = -1), kitchen_threads())), "kitchen.threads"),
  list("option kitchen.simd", quote(withr_options(list(kitchen.simd = "sse9"), kitchen_simd())), "kitchen.simd"),
  list("option kitchen.gemm", quote(withr_options(list(kitchen.gemm = "fast"), predict(rff_map, good_x))), "kitchen.gemm")
)

withr_options <- function(values, code) {
  old <- options(values)
  on.exit(options(old))
  code
}

test_that("the catalogue holds at least 100 bad inputs", {
  expect_gte(length(catalogue), 100)
})

for (case in catalogue) {
  test_that(paste("bad input refused:", case[[1]]), {
    err <- tryCatch(eval(case[[2]]), error = function(e) e)
    expect_s3_class(err, "kitchen_error_argument")
    expect_match(conditionMessage(err), case[[3]])
  })
}

test_that("awkward inputs of the fourth tour get clear errors or the right answer", {
  x <- as.matrix(mtcars[, c("wt", "hp", "disp")])
  # kernel_matrix() matches y's columns to x's by name, as predict() does
  expect_identical(kernel_matrix(x[1:3, ], x[1:3, c("disp", "hp", "wt")], n_threads = 1),
                   kernel_matrix(x[1:3, ], n_threads = 1))
  expect_error(kernel_matrix(x, `colnames<-`(x, c("a", "b", "c"))), "columns of `x`",
               class = "kitchen_error_argument")
  # a Matern law too heavy-tailed to draw from: the error names nu
  for (build in list(rff, fastfood)) {
    expect_error(build(x, 16, kernel = kernel_matern(nu = 1e-4), seed = 1), "`nu`",
                 class = "kitchen_error_argument")
  }
  # the argument's name, not its deparsed value
  with_na <- x
  with_na[3, 2] <- NA
  expect_error(krr_fit(as.data.frame(with_na), mtcars$mpg), "^`x` must not contain",
               class = "kitchen_error_argument")
  expect_error(rbin(as.data.frame(with_na), 5), "^`x` must not contain",
               class = "kitchen_error_argument")
  expect_error(rff(x, 10, seed = 1e10), "`seed` must be a whole number from",
               class = "kitchen_error_argument")
  expect_error(rff(x, 10, n_threads = 2), "`rff\\(\\)` has no argument `n_threads`",
               class = "kitchen_error_argument")
  expect_warning(fit <- krr_fit(mpg ~ 0 + wt + hp, mtcars, lambda = 1, n_features = 20, seed = 1,
                                n_threads = 1), "keeps its intercept")
  expect_equal(coef(fit), coef(krr_fit(mpg ~ wt + hp, mtcars, lambda = 1, n_features = 20,
                                       seed = 1, n_threads = 1)))
})

test_that("methods warn about arguments they do not use, and check the ones they take", {
  fit <- krr_fit(mpg ~ wt + hp, mtcars, lambda = 1, n_features = 20, seed = 1, n_threads = 1)
  expect_warning(residuals(fit, type = "pearson"), "not used by `residuals\\(\\)`")
  expect_warning(fitted(fit, type = "x"), "not used by `fitted\\(\\)`")
  expect_error(predict(fit, mtcars, parallel = "x"), "`parallel` must be one of")
  skip_if_not_installed("generics")
  expect_identical(nrow(generics::augment(fit, new_data = mtcars[1:3, ])), 3L)
  map <- rff(as.matrix(mtcars[, 1:3]), 10, seed = 1)
  expect_error(print(summary(map), max_columns = 0), "max_columns")
  # a named vector y names the fitted values when x has no row names, as in lm()
  y <- stats::setNames(mtcars$mpg, rownames(mtcars))
  named <- krr_fit(unname(as.matrix(mtcars[, c("wt", "hp")])), y, lambda = 1, n_features = 20,
                   seed = 1, n_threads = 1)
  expect_identical(names(fitted(named)), rownames(mtcars))
})

test_that("a sparse matrix's non-finite value is located by row and column", {
  x <- Matrix::sparseMatrix(i = c(1, 3, 2), j = c(1, 2, 3), x = c(1, Inf, 2), dims = c(4, 3),
                            dimnames = list(NULL, c("a", "b", "c")))
  expect_error(rff(x, 10, sigma = 1), "Row 3, column 2 \\(\"b\"\\) is Inf",
               class = "kitchen_error_argument")
})

test_that("missing arguments, abbreviations and refused numbers read as R users expect", {
  x <- as.matrix(mtcars[, c("wt", "hp")])
  for (call in list(quote(rff(x)), quote(fastfood(x)), quote(rbin(x)), quote(nystrom(x)),
                    quote(krr_fit(x)))) {
    cnd <- tryCatch(eval(call), error = identity)
    expect_match(conditionMessage(cnd), "is absent but must be supplied")
    expect_identical(cnd$call[[1]], call[[1]])  # the user's call, not an internal helper
  }
  fit <- krr_fit(x, mtcars$mpg, rff(x, 20, seed = 1), lambda = 1, n_threads = 1)
  expect_identical(predict(fit, x[1:2, ], type = "resp"), predict(fit, x[1:2, ]))
  expect_identical(rff(x, 20, scale = "min", seed = 1), rff(x, 20, scale = "minmax", seed = 1))
  expect_error(rff(x, 20, scale = "x"), "must be one of", class = "kitchen_error_argument")
  expect_error(rff(x, -1), "not -1\\.", class = "kitchen_error_argument")  # a number, unquoted
  expect_error(rff(x, 20, sigma = -2), "not -2", class = "kitchen_error_argument")
  # A few numbers unquoted; other values described, never formatted as strings.
  refused <- function(code) conditionMessage(tryCatch(code, error = identity))
  expect_match(refused(rff(x, c(4, 8))), "not 4 and 8\\.")
  expect_match(refused(rff(x, NULL)), "not NULL\\.")
  expect_match(refused(rff(x, 1:20)), "not an integer vector of length 20\\.")
  expect_match(refused(rff(x, list(1))), "not a list\\.")
  expect_match(refused(rff(x, 20, sigma = numeric(0))), "not an empty numeric vector\\.")
  expect_match(refused(rff(x, 20, scale = "x")), "one of \"standard\", \"minmax\", or \"none\", not \"x\"\\.")
  # Every refused seed gets the one range.
  for (seed in list(NA, 1.5, "a", 2^31)) {
    expect_match(refused(rff(x, 20, seed = seed)), "whole number from -2147483647 to 2147483647")
  }
})

test_that("n_folds given with folds is said to be unused", {
  x <- as.matrix(mtcars[, c("wt", "hp")])
  expect_warning(krr_fit(x, mtcars$mpg, n_features = 20, seed = 1, folds = rep(1:4, 8),
                         n_folds = 5, n_threads = 1), "`n_folds` is not used")
})

test_that("messages name what the user set: weighted rows, column names, n_features", {
  set.seed(1)
  x <- matrix(rnorm(300 * 3), 300, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- sin(x[, 1]) + x[, 2]
  expect_error(krr_fit(x, y, weights = c(1, rep(0, 299)), n_features = 50, seed = 1,
                       n_threads = 1, verbose = FALSE),
               "must not exceed the number of rows with non-zero weight \\(1\\)",
               class = "kitchen_error_argument")
  expect_error(krr_fit(x * 1e-310, y, n_features = 50, lambda = 0.1, seed = 1, n_threads = 1),
               "Columns: 1 (\"a\"), 2 (\"b\"), and 3 (\"c\")", fixed = TRUE,
               class = "kitchen_error_argument")
  rlang::local_options(kitchen.dual = FALSE)  # the primal path's Z'Z (the dual's: test-dual-path.R)
  expect_error(krr_fit(x, y, n_features = 1e6, lambda = 0.1, seed = 1, n_threads = 1),
               "`n_features` is 1000000: Z'Z would need 8000 GB", fixed = TRUE,
               class = "kitchen_error_argument")
  expect_error(krr_fit(x, y, rff(x, 1e6, sigma = 1, seed = 1), lambda = 0.1, n_threads = 1),
               "`features` has 1000000 features", fixed = TRUE, class = "kitchen_error_argument")
})

test_that("logical data are 0 / 1, dense as sparse; NULL in ... is not given", {
  set.seed(2)
  x <- matrix(rnorm(200 * 3), 200, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- x[, 1] + rnorm(200)
  flags <- x > 0
  numbers <- flags * 1
  fit_numbers <- krr_fit(numbers, y, n_features = 40, lambda = 0.1, sigma = 1, seed = 1, n_threads = 1)
  fit_flags <- krr_fit(flags, y, n_features = 40, lambda = 0.1, sigma = 1, seed = 1, n_threads = 1)
  expect_identical(coef(fit_flags), coef(fit_numbers))
  expect_identical(predict(fit_flags, flags[1:5, ]), predict(fit_numbers, numbers[1:5, ]))
  expect_identical(coef(krr_fit(as.data.frame(flags), y, n_features = 40, lambda = 0.1, sigma = 1,
                                seed = 1, n_threads = 1)), coef(fit_numbers))
  # a wrapper passing seed = NULL with a map means "no seed"
  map <- rff(x, 40, sigma = 1, seed = 1)
  expect_identical(coef(krr_fit(x, y, map, lambda = 0.1, seed = NULL, n_threads = 1)),
                   coef(krr_fit(x, y, map, lambda = 0.1, n_threads = 1)))
  expect_error(krr_fit(x, y, map, lambda = 0.1, seed = 3, n_threads = 1), "already a map",
               class = "kitchen_error_argument")
})

test_that("integer64 columns of a formula's data are refused with the fix", {
  # bit64's class on doubles: model.matrix() would take the bits as numbers
  d <- data.frame(y = rnorm(50), b = rnorm(50))
  d$a <- structure(as.double(1:50) * 4.940656e-324, class = "integer64")
  expect_error(krr_fit(y ~ a + b, d, n_features = 20, lambda = 0.1, seed = 1, n_threads = 1),
               "`data` has <integer64> column `a`.*as.numeric", class = "kitchen_error_argument")
  d$a <- seq_len(50)
  fit <- krr_fit(y ~ a + b, d, n_features = 20, lambda = 0.1, seed = 1, n_threads = 1)
  new <- d[1:3, ]
  new$a <- structure(as.double(1:3) * 4.940656e-324, class = "integer64")
  expect_error(predict(fit, new), "`newdata` has <integer64> column `a`",
               class = "kitchen_error_argument")
})
