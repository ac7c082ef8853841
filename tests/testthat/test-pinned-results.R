# Fits and predictions must stay bitwise identical across refactorings of
# the fit path (issue 22): the values in fixtures/pinned-results.rds were
# made by tools/pin-results.R from the code before them. They depend on the
# platform (SIMD level, BLAS, compiler flags), so they are compared only
# where they were made, and not under the sanitizer's -O1 build.

test_that("pinned fits and predictions are unchanged, bit for bit", {
  skip_if(identical(Sys.getenv("KITCHEN_SANITIZER"), "true"), "values pinned for the -O2 build")
  skip_if_not_installed("Matrix")
  stored <- readRDS(test_path("fixtures", "pinned-results.rds"))
  skip_if(!identical(stored$platform, pinned_platform()),
          "the pinned values were made on another platform (SIMD level, BLAS or R)")
  now <- pinned_results()
  expect_setequal(names(now$features), names(stored$results$features))
  for (map in names(stored$results$features)) {
    for (what in names(stored$results$features[[map]])) {
      expect_identical(now$features[[map]][[what]], stored$results$features[[map]][[what]],
                       label = sprintf("features of map %s (%s)", map, what))
    }
  }
  expect_setequal(names(now$fits), names(stored$results$fits))
  for (fit in names(stored$results$fits)) {
    for (what in names(stored$results$fits[[fit]])) {
      expect_identical(now$fits[[fit]][[what]], stored$results$fits[[fit]][[what]],
                       label = sprintf("fit %s: %s", fit, what))
    }
  }
})
