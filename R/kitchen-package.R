#' kitchen: random features for kernel machines at scale
#'
#' Kernel methods fit non-linear structure well but cost O(n^2) memory and
#' O(n^3) time in the number of observations. kitchen replaces the kernel by
#' explicit random features whose inner products approximate it, so a linear
#' model on those features behaves like the kernel machine at a fraction of
#' the cost.
#'
#' The package so far provides:
#' * kernel objects ([kernels]) and exact kernel matrices ([kernel_matrix()]);
#' * feature maps: random Fourier features ([rff()]), Fastfood
#'   ([fastfood()]) and random binning ([rbin()], sparse features), with
#'   `predict()` methods computing features in parallel;
#' * [krr_fit()]: ridge regression and classification on those features,
#'   with lambda (and the bandwidth) chosen by GCV or cross-validation,
#'   without ever holding the feature matrix in memory;
#' * [fwht()]: a fast, multithreaded Walsh-Hadamard transform with SIMD
#'   kernels chosen at run time, the building block of Fastfood;
#' * [cpu_act]: the CPU activity data used in the papers.
#'
#' Parallel functions take `n_threads`; see [kitchen_threads()] for how the
#' default is chosen, and [kitchen_simd()] for the instruction sets in use.
#'
#' @keywords internal
#' @useDynLib kitchen, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importClassesFrom Matrix dgCMatrix
#' @importFrom RcppParallel RcppParallelLibs defaultNumThreads
#' @importFrom rlang caller_arg caller_env
#' @importFrom stats predict
"_PACKAGE"
