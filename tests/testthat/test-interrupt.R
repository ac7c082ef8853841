# A user interrupt (SIGINT, as Ctrl-C sends) during long C++ work returns
# control promptly: the child R process running the call stops within a
# couple of seconds of the signal, instead of finishing its minutes of work.

test_that("an interrupt stops long krr_fit, rff, kernel_matrix and fwht calls promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")  # no SIGINT to send
  # tools/sanitize.sh: instrumented children are slow, their delays mean nothing
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  calls <- c(
    krr_fit = "library(kitchen); set.seed(1); x <- matrix(rnorm(2e5 * 8), 2e5); krr_fit(x, x[, 1], rff(8, 4096, sigma = 1), lambda = 1, block_size = 8192, verbose = FALSE)",
    rff = "library(kitchen); set.seed(1); x <- matrix(rnorm(5000 * 1024), 5000); m <- rff(1024, 8192, sigma = 1); for (i in 1:1000) predict(m, x)",
    kernel_matrix = "library(kitchen); set.seed(1); x <- matrix(rnorm(8000 * 500), 8000); for (i in 1:1000) kernel_matrix(x)",
    fwht = "library(kitchen); x <- matrix(rnorm(2^18 * 128), 2^18); for (i in 1:10000) fwht(x)")
  for (name in names(calls)) {
    delay <- interrupt_delay(calls[[name]])
    expect_false(is.na(delay), label = paste(name, "was still running at the signal"))
    expect_lt(delay, 2.5, label = paste(name, "stopped within 2.5 s of SIGINT"))
  }
})

test_that("an interrupt stops fits with D = 12,000 features promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # Z'Z is a 1.15 GB matrix here: symmetrising it, adding and subtracting the
  # folds' matrices, centring it, reducing it to tridiagonal form, the
  # folds' quadratic forms and the Cholesky factorisation of a fixed lambda
  # all check for interrupts (once R-level steps of seconds to minutes).
  # Few rows keep the Gram accumulation short, so the signals land in those
  # steps: the default (5-fold CV) at 2, 5 and 12 s (the last near the
  # first fold's tridiagonal reduction on a quiet machine: its loading of
  # 1.15 GB once held an interrupt for up to 9.6 s), a fixed lambda at 5 s.
  # With 300 rows and 12,000 features the dual path (R/krr_dual.R) would
  # finish in a second: the primal one is forced, its D x D steps tested.
  fit_code <- function(lambda) {
    paste("library(kitchen); options(kitchen.dual = FALSE); set.seed(1); x <- matrix(rnorm(300 * 4), 300);",
          "krr_fit(x, x[, 1], rff(4, 12000, sigma = 1), block_size = 300, verbose = FALSE",
          lambda, ")")
  }
  # GCV (the fit of issue 23, on fewer rows) symmetrises and centres Z'Z and
  # reduces it once: signals at 5 and 12 s.
  cases <- list(list(lambda = "", warm_up = 2), list(lambda = "", warm_up = 5),
                list(lambda = "", warm_up = 12), list(lambda = ", lambda = 1", warm_up = 5),
                list(lambda = ", lambda = 'gcv'", warm_up = 5),
                list(lambda = ", lambda = 'gcv'", warm_up = 12))
  for (case in cases) {
    what <- sprintf("the fit%s, %g s in", case$lambda, case$warm_up)
    delay <- interrupt_delay(fit_code(case$lambda), warm_up = case$warm_up)
    expect_false(is.na(delay), label = paste(what, "was still running"))
    expect_lt(delay, 2.5, label = paste(what, "stopped within 2.5 s of SIGINT"))
  }
})

test_that("an interrupt stops a logistic fit with D = 12,000 features promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # The bound c Zc'WZc + 2 lambda I is factored by blocks between interrupt
  # checks: R's chol() of it held a signal for 112 s at D = 6000 (load 14).
  # (kitchen.dual = FALSE: with 300 rows the dual path would factor 300 x 300 bounds instead)
  # D = 12,000: with the factor on the Z'Z kernels the whole fit at D = 8000
  # took 4.3 s (AVX2, 2 threads) and could end before the signal; this one
  # takes 12 s there. The signal comes 3 s after "ready".
  code <- paste("library(kitchen); options(kitchen.dual = FALSE); set.seed(1);",
                "x <- matrix(rnorm(300 * 4), 300); map <- rff(4, 12000, sigma = 1);",
                "cat('ready\\n');",
                "krr_fit(x, factor(x[, 1] > 0), map, loss = 'logistic',",
                "lambda = 1, block_size = 300, verbose = FALSE)")
  delay <- interrupt_delay(code, warm_up = 3, ready = TRUE)
  expect_false(is.na(delay), label = "the logistic fit was still running")
  expect_lt(delay, 2.5, label = "the logistic fit stopped within 2.5 s of SIGINT")
})

test_that("an interrupt stops a logistic fit on an rbin map (Newton-CG) promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # Interrupts are checked between CG iterations and between chunks of rows.
  code <- paste("library(kitchen); set.seed(1); x <- matrix(rnorm(2e5 * 4), 2e5);",
                "y <- factor(max.col(x[, 1:3] + rnorm(6e5)));",
                "krr_fit(x, y, rbin(x, 100, sigma = 0.5, seed = 1), loss = 'logistic',",
                "lambda = 1e-6, tol = 1e-14, max_iter = 100000, verbose = FALSE)")
  delay <- interrupt_delay(code, warm_up = 8)
  expect_false(is.na(delay), label = "the rbin logistic fit was still running")
  expect_lt(delay, 2.5, label = "the rbin logistic fit stopped within 2.5 s of SIGINT")
})

test_that("an interrupt stops the CV folds' blocked products promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  skip_if(kitchen_simd()$used == "scalar", "the blocked products need AVX2 or AVX-512")
  # Q by blocks of reflectors (reflector_blocks.hpp) on 30,000 columns after
  # a short reduction (2000 x 2000), and G W packed (quadratic_forms.hpp):
  # each checking between blocks and chunks of units. Signals 2.5 s after
  # "ready": measured at load 10 (2 threads, AVX-512), the reduction takes
  # 1.2 s (0.6 CPU s) and Q' on the columns 18.5 s (9 CPU s, so about 5 s at
  # load 1); one G W 17 s (8 CPU s).
  # Each call is repeated so that a faster machine is still in one at the
  # signal (a child that finished first gives NA: a failure to measure).
  calls <- c(
    reflectors = paste("set.seed(1); a <- matrix(rnorm(2000 * 2000), 2000); g <- a + t(a);",
                       "x <- matrix(rnorm(2000 * 30000), 2000); y <- x[, 1:2]; cat('ready\\n');",
                       "for (i in 1:3) kitchen:::tridiagonal_cpp(g, x, y, FALSE, 2L, 'avx512', 0, TRUE)"),
    quadratic = paste("set.seed(1); a <- matrix(rnorm(6000 * 6000), 6000); g <- a + t(a);",
                      "w <- matrix(rnorm(6000 * 5000), 6000); cat('ready\\n');",
                      "for (i in 1:10) kitchen:::fold_quadratic_forms_cpp(g, w, 2L, 'avx512')"))
  for (name in names(calls)) {
    delay <- interrupt_delay(paste("library(kitchen);", calls[[name]]), warm_up = 2.5, ready = TRUE)
    expect_false(is.na(delay), label = paste(name, "was still running at the signal"))
    expect_lt(delay, 2.5, label = paste(name, "stopped within 2.5 s of SIGINT"))
  }
})
