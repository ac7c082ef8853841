# Stores the values of the pinned fits and predictions
# (tests/testthat/helper-pinned.R) with the installed kitchen, for
# tests/testthat/test-pinned-results.R. Run from the package root, with the
# code from before a change that must not alter results:
#   R_LIBS=<library with that build> Rscript tools/pin-results.R
suppressPackageStartupMessages(library(kitchen))
source("tests/testthat/helper-pinned.R")
saveRDS(list(platform = pinned_platform(), results = pinned_results(),
             made_with = as.character(utils::packageVersion("kitchen"))),
        "tests/testthat/fixtures/pinned-results.rds", version = 2, compress = "xz")
cat("stored tests/testthat/fixtures/pinned-results.rds\n")
