# kitchen demo: kernel ridge regression with the three random feature maps
# (rff, fastfood, rbin) on real data, next to a linear model, and the fast
# Walsh-Hadamard transform under Fastfood.
#
# Run it from an installed kitchen with
#   Rscript -e 'source(system.file("scripts", "demo.R", package = "kitchen"))'

library(kitchen)

simd <- kitchen_simd()
cat(sprintf("kitchen %s | SIMD: CPU supports %s, using %s | threads: %d | BLAS: %s\n\n",
            utils::packageVersion("kitchen"), simd$cpu, simd$used, kitchen_threads(),
            basename(extSoftVersion()[["BLAS"]])))

# 1. The CPU activity data (shipped with kitchen), split as in Rahimi & Recht
# (2007): 6554 rows to train, 1638 to test. Error = ||yhat - y|| / ||y||.
# The 21 inputs are counts and rates with long right tails (lread: median 7,
# largest 1845), so every model gets log(1 + x): on the raw scale distances
# between rows, and with them the kernels, hinge on a few extreme rows.
data(cpu_act, package = "kitchen")
inputs <- names(cpu_act) != "usr"
cpu <- cpu_act
cpu[inputs] <- log1p(cpu[inputs])
set.seed(2007)
rows <- sample(nrow(cpu))
train <- cpu[rows[1:6554], ]
test <- cpu[rows[6555:8192], ]
x_train <- as.matrix(train[inputs])
x_test <- as.matrix(test[inputs])
relative_error <- function(yhat) sqrt(sum((yhat - test$usr)^2)) / sqrt(sum(test$usr^2))
report <- function(label, seconds, yhat) {
  cat(sprintf("%-48s test error %5.2f%%   %6.2f s\n", label, 100 * relative_error(yhat), seconds))
}

seconds <- system.time(linear <- lm(usr ~ ., data = train))[["elapsed"]]
report("linear model (lm)", seconds, predict(linear, test))

# Random Fourier features and Fastfood (the same Gaussian kernel from
# structured matrices, O(D log d) per row), D = 300 as in the paper. The
# bandwidth (1/4 to 4 times the median-distance heuristic) and lambda are
# chosen together by generalised cross-validation on the training rows only.
fits <- list()
for (name in c("rff", "fastfood")) {
  build <- get(name, envir = asNamespace("kitchen"))
  seconds <- system.time({
    map <- build(x_train, 300, seed = 1)
    fits[[name]] <- krr_fit(x_train, train$usr, map, sigma = "auto")
  })[["elapsed"]]
  report(sprintf("%s, D = 300, sigma = %.3g by GCV%s", name, fits[[name]]$map$kernel$sigma,
                 if (name == "rff") " (paper: 3.6%)" else ""),
         seconds, predict(fits[[name]], x_test))
}

# Random binning (Laplacian kernel), P = 350 grids as in the paper: sparse
# features, solved by conjugate gradients, lambda by 5-fold CV.
seconds <- system.time({
  map <- rbin(x_train, 350, scale = "minmax", seed = 1)
  binned <- krr_fit(x_train, train$usr, map)
})[["elapsed"]]
report(sprintf("rbin, P = 350, %d bins (paper: 5.3%%)", map$n_features),
       seconds, predict(binned, x_test))
cat("\n")
print(fits$rff)

# 2. The fast Walsh-Hadamard transform (the core of Fastfood features),
# checked against the explicit Hadamard matrix, and timed against it.
hadamard <- function(n) {
  h <- matrix(1, 1, 1)
  while (nrow(h) < n) h <- rbind(cbind(h, h), cbind(h, -h))
  h
}
n <- 1024
x <- matrix(rnorm(n * 2000), n, 2000)
h <- hadamard(n)
cat(sprintf("\nfwht: max |fwht(x) - H %%*%% x| = %.1e at n = %d\n", max(abs(fwht(x) - h %*% x)), n))
t_fwht <- system.time(for (i in 1:10) fwht(x))[["elapsed"]] / 10
t_dense <- system.time(h %*% x)[["elapsed"]]
cat(sprintf("fwht: %.2f us per column of length %d; H %%*%% x: %.1f us per column\n",
            1e6 * t_fwht / 2000, n, 1e6 * t_dense / 2000))
