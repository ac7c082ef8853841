# A user interrupt (SIGINT, as Ctrl-C sends) during long C++ work returns
# control promptly: the child R process running the call stops within a
# couple of seconds of the signal, instead of finishing its minutes of work.

interrupt_delay <- function(code, warm_up = 2) {
  child <- processx::process$new(
    file.path(R.home("bin"), "Rscript"), c("-e", code),
    stdout = "|", stderr = "|",
    # the child must find the kitchen being tested (under R CMD check, in its own library)
    env = c("current", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep),
            KITCHEN_NUM_THREADS = "2"))
  on.exit(if (child$is_alive()) child$kill())
  Sys.sleep(warm_up)
  if (!child$is_alive()) return(NA_real_)  # finished (or failed) before the signal
  started <- Sys.time()
  child$signal(2L)  # SIGINT
  child$wait(timeout = 30000)
  if (child$is_alive()) return(Inf)
  as.numeric(difftime(Sys.time(), started, units = "secs"))
}

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

test_that("an interrupt stops a GCV fit with D = 12,000 features promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # Z'Z is a 1.15 GB matrix here: symmetrising it, centring it (once R-level
  # copies of seconds each) and reducing it to tridiagonal form all check
  # for interrupts. Few rows keep the Gram accumulation short, so the
  # signals (2 and 5 s in) land in those steps.
  code <- paste("library(kitchen); set.seed(1); x <- matrix(rnorm(300 * 4), 300);",
                "krr_fit(x, x[, 1], rff(4, 12000, sigma = 1), block_size = 300, verbose = FALSE)")
  for (warm_up in c(2, 5)) {
    delay <- interrupt_delay(code, warm_up = warm_up)
    expect_false(is.na(delay), label = sprintf("the fit was still running %g s in", warm_up))
    expect_lt(delay, 2.5, label = sprintf("the fit stopped within 2.5 s of SIGINT at %g s", warm_up))
  }
})
