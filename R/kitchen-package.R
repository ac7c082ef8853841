#' kitchen: random features for kernel machines at scale
#'
#' Kernel methods fit non-linear structure well but cost O(n^2) memory and
#' O(n^3) time in the number of observations. kitchen replaces the kernel by
#' explicit random features whose inner products approximate it, so a linear
#' model on those features behaves like the kernel machine at a fraction of
#' the cost.
#'
#' The package provides:
#' * kernel objects ([kernels]) and exact kernel matrices ([kernel_matrix()]);
#' * feature maps: random Fourier features ([rff()]), Fastfood
#'   ([fastfood()]), random binning ([rbin()], sparse features) and
#'   Nystroem features on data-chosen centers ([nystrom()]), with
#'   `predict()` methods computing features in parallel;
#' * [krr_fit()]: ridge regression and classification on those features,
#'   with lambda (and the bandwidth) chosen by GCV or cross-validation,
#'   without ever holding the feature matrix in memory, and
#'   [predict()][predict.kitchen_krr] for new data;
#' * [chunked()]: data read one chunk at a time, for fits and predictions
#'   on data larger than memory;
#' * [fwht()]: a fast, multithreaded Walsh-Hadamard transform with SIMD
#'   kernels chosen at run time, the building block of Fastfood;
#' * [cpu_act]: the CPU activity data used in the papers.
#'
#' Parallel functions take `n_threads`; see [kitchen_threads()] for how the
#' default is chosen, and [kitchen_simd()] for the instruction sets in use.
#'
#' Start with the five vignettes: `vignette("kitchen")` (getting started:
#' kernels, the three maps, fitting, lambda by cross-validation, classification,
#' prediction, saving a model), `vignette("choosing-a-map")` (accuracy and
#' cost of the three maps side by side), `vignette("how-it-works")`
#' (Bochner's theorem, random binning and Fastfood, with numeric checks) and
#' `vignette("scaling-out")` (data in chunks, larger than memory, from files,
#' Parquet folders or databases, fitted on a local cluster or a scheduler with
#' \pkg{future}) and `vignette("tidymodels")` (tuning [kernel_ridge()] in a
#' workflow).
#'
#' @references Rahimi, A. and Recht, B. (2007). Random features for
#'   large-scale kernel machines. Advances in Neural Information Processing
#'   Systems 20.
#'
#'   Le, Q., Sarlos, T. and Smola, A. (2013). Fastfood: Approximating Kernel
#'   Expansions in Loglinear Time. Proceedings of the 30th International
#'   Conference on Machine Learning.
#' @examples
#' data(cpu_act)
#' # The inputs are counts with long right tails: on their log, distances are
#' # not dominated by a few extreme rows.
#' x <- log1p(as.matrix(cpu_act[names(cpu_act) != "usr"]))
#' map <- rff(x, n_features = 300, seed = 1)
#' fit <- krr_fit(x, cpu_act$usr, map, sigma = "auto", n_threads = 2)
#' fit
#' head(predict(fit, x, n_threads = 2))
#' @keywords internal
#' @useDynLib kitchen, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom RcppParallel RcppParallelLibs defaultNumThreads
#' @importFrom rlang caller_arg caller_env
#' @importFrom stats predict
"_PACKAGE"
