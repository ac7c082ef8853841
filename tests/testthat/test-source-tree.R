# Checks of the package's R sources themselves, where they are beside the
# tests (a source tree, as tools/sanitize.sh runs the suite; R CMD check
# installs from the tarball and skips them).

test_that("no two top-level definitions share a name (R/ files share one namespace)", {
  # A second pad_rows() in another file silently replaced the first once,
  # and only a test far away noticed.
  dir <- test_path("..", "..", "R")
  skip_if_not(file.exists(file.path(dir, "krr.R")), "the package's R/ sources are not here")
  defined <- unlist(lapply(list.files(dir, "\\.R$", full.names = TRUE), function(file) {
    names <- vapply(parse(file, keep.source = FALSE), function(e) {
      assigned <- is.call(e) && (identical(e[[1]], as.name("<-")) || identical(e[[1]], as.name("=")))
      if (assigned && is.name(e[[2]])) as.character(e[[2]]) else NA_character_
    }, "")
    names <- names[!is.na(names)]
    stats::setNames(names, rep(basename(file), length(names)))
  }))
  expect_gt(length(defined), 100)
  repeated <- defined[defined %in% defined[duplicated(defined)]]
  expect_identical(sprintf("%s (%s)", repeated, names(repeated)), character(0))
})
