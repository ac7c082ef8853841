# Loading kitchen does not load Matrix (with lattice and grid): a session
# holding Matrix's namespace spends several times longer in every full
# garbage collection. Only rbin features, which are dgCMatrix objects, load it.

test_that("library(kitchen) leaves Matrix unloaded until rbin features need it", {
  skip_on_os("windows")  # system2() ignores env there: the child could load another kitchen
  out <- child_output(
    "library(kitchen)",
    "cat(isNamespaceLoaded('Matrix'), '')",
    "y <- fwht(matrix(1, 4, 2)); m <- rff(2, 8, sigma = 1, seed = 1); z <- predict(m, diag(2))",
    "cat(isNamespaceLoaded('Matrix'), '')",
    "map <- rbin(matrix(c(0.1, 0.5, 0.9, 0.3), 2), n_grids = 3, seed = 1)",
    "z <- predict(map, matrix(c(0.1, 0.5, 0.9, 0.3), 2))",
    "cat(isNamespaceLoaded('Matrix'), class(z), format(sum(z^2)))")
  # Each row of rbin features has one entry 1/sqrt(n_grids) per grid: squares sum to the rows.
  expect_equal(out, "FALSE FALSE TRUE dgCMatrix 2")
})

test_that("every method of a kitchen class is registered, not only found from the namespace", {
  # Tests run in an environment inside the namespace, where dispatch finds
  # unregistered methods too; users' sessions do not (plot(map) fell
  # through to plot.default). So compare with the registered table.
  ns <- asNamespace("kitchen")
  generics <- c("print", "summary", "plot", "predict", "format", "coef", "fitted", "residuals",
                "update", "relevance", "tidy", "glance", "augment", "deviance", "sigma", "nobs",
                "logLik", "vcov", "model.frame", "terms", "formula")
  pattern <- sprintf("^(%s)\\.(kitchen_[A-Za-z_]+)$", paste(generics, collapse = "|"))
  methods <- grep(pattern, ls(ns, all.names = TRUE), value = TRUE)
  methods <- methods[vapply(methods, function(m) is.function(get(m, ns)), TRUE)]
  registered <- getNamespaceInfo("kitchen", "S3methods")
  registered <- paste(registered[, 1], registered[, 2], sep = ".")
  expect_true("plot.kitchen_map" %in% methods)
  expect_setequal(intersect(methods, registered), methods)
})

test_that("update() refits where kitchen is loaded but not attached", {
  skip_on_os("windows")  # system2() ignores env there: the child could load another kitchen
  # update() evaluated the stored krr_fit(...) call, a function not found
  # without library(kitchen) (code importing kitchen, PSOCK and callr workers).
  out <- child_output(
    "f <- kitchen::krr_fit(mpg ~ wt + hp, mtcars, n_features = 20, seed = 1, n_threads = 1)",
    "g <- update(f, lambda = 1)",
    "h <- update(f, . ~ wt)",
    "cat(g$lambda, h$map$d, 'kitchen' %in% .packages(), deparse(g$call[[1]]))")
  expect_equal(out, "1 1 FALSE krr_fit")
})
