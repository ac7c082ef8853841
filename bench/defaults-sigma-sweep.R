# Issue 17's remaining gap to exact kernel ridge at D = 1000: is it the
# bandwidth the default search picks, or the features' variance? The
# default rff fit (formula interface, every default, set.seed(1)) on the
# suite's fixed split, against the same fit with its chosen bandwidth
# times 2^-2 .. 2^1, and with orthogonal random features (orthogonal =
# TRUE) at the default. Results in bench/results/defaults.md.
#   Rscript bench/defaults-sigma-sweep.R "Parkinsons,ames,concrete,mtcars" 1000
suppressMessages(source("bench/defaults.R"))
all_sets <- load_datasets(); names(all_sets) <- vapply(all_sets, `[[`, "", "name")
args <- commandArgs(TRUE)
D <- as.numeric(args[2])
for (nm in strsplit(args[1], ",")[[1]]) {
  set <- all_sets[[nm]]
  type <- if (is_class(set)) "class" else "response"
  fit_error <- function(...) {
    set.seed(1)
    fit <- krr_fit(formula_of(set), set$frame[set$train, ], features = "rff", n_features = D,
                   n_threads = 2, verbose = FALSE, ...)
    list(error = test_error(set, predict(fit, set$frame[set$test, ], type = type)),
         sigma = fit$map$kernel$sigma)
  }
  default <- fit_error()
  swept <- vapply(2^(-2:1), function(f) fit_error(sigma = default$sigma * f)$error, 0)
  cat(sprintf("%s D=%d sigma %.3g: factor 1/4 %.4f 1/2 %.4f 1 %.4f 2 %.4f; orthogonal at the default %.4f\n",
              nm, D, default$sigma, swept[1], swept[2], swept[3], swept[4],
              fit_error(orthogonal = TRUE)$error))
}
