#' Kernel objects
#'
#' Small objects describing a shift-invariant kernel `k(x, y) = k(x - y)`,
#' used by every feature map of kitchen and by [kernel_matrix()]. Each knows
#' its exact value and its spectral law (the distribution of random
#' frequencies, by Bochner's theorem), so random Fourier features built from
#' it satisfy `E[z(x)'z(y)] = k(x, y)`.
#'
#' With r = x - y and bandwidth `sigma`:
#' * `kernel_gaussian()`: `k = exp(-||r||_2^2 / (2 sigma^2))`; frequencies
#'   `w ~ N(0, I / sigma^2)`.
#' * `kernel_laplacian()`: `k = exp(-||r||_1 / sigma)`; each `w_j ~
#'   Cauchy(0, 1 / sigma)` independently. Its random binning pitch law is
#'   `Gamma(shape = 2, scale = sigma)`.
#' * `kernel_cauchy()`: `k = prod_j 1 / (1 + r_j^2 / sigma^2)`; each `w_j ~
#'   Laplace(0, 1 / sigma)` independently.
#' * `kernel_matern()`: `k = 2^(1 - nu) / Gamma(nu) (sqrt(2 nu) ||r||_2 /
#'   sigma)^nu K_nu(sqrt(2 nu) ||r||_2 / sigma)`; `w` follows a multivariate
#'   t distribution with `2 nu` degrees of freedom and scale `1 / sigma`.
#'   `nu = 0.5` is the exponential kernel `exp(-||r||_2 / sigma)`; as `nu`
#'   grows it tends to the Gaussian kernel (differences of order `1 / nu`).
#'   [kernel_matrix()] computes it from the Bessel function up to `nu = 100`
#'   and from the uniform asymptotic expansion of `K_nu` above (about 12
#'   correct digits at `nu = 100`, more beyond), at the same cost for any `nu`.
#'
#' @param sigma Bandwidth: a positive number, or a vector of positive numbers,
#'   one per input column (automatic relevance determination: the kernel of
#'   `x_j / sigma_j` at bandwidth 1, so a column with a large bandwidth
#'   matters little). A map built with such a kernel needs one bandwidth per
#'   column of its (rescaled) inputs; named bandwidths are matched to the
#'   data's columns by name (for data without column names, names `x1`,
#'   `x2`, ... as [relevance()] gives), unnamed ones by position.
#' @param nu Smoothness of the Matern kernel, a positive number.
#' @return An object of class `kitchen_kernel`: a list with `name`, `sigma`
#'   and, for the Matern kernel, `nu`.
#' @seealso [kernel_matrix()] for exact kernel values.
#' @name kernels
#' @examples
#' kernel_gaussian(sigma = 2)
#' k <- kernel_matern(sigma = 1, nu = 1.5)
#' x <- matrix(rnorm(6), 3, 2)
#' kernel_matrix(x, kernel = k)
NULL

new_kernel <- function(name, sigma, ..., call = rlang::caller_env()) {
  check_bandwidth(sigma, arg = "sigma", call = call)
  structure(list(name = name, sigma = bandwidth_values(sigma), ...),
            class = c(paste0("kitchen_kernel_", name), "kitchen_kernel"))
}

#' @rdname kernels
#' @export
kernel_gaussian <- function(sigma = 1) new_kernel("gaussian", sigma)

#' @rdname kernels
#' @export
kernel_laplacian <- function(sigma = 1) new_kernel("laplacian", sigma)

#' @rdname kernels
#' @export
kernel_cauchy <- function(sigma = 1) new_kernel("cauchy", sigma)

#' @rdname kernels
#' @export
kernel_matern <- function(sigma = 1, nu = 1.5) {
  if (identical(nu, Inf)) {
    abort_arg(c("{.arg nu} must be finite.",
                i = "As {.arg nu} grows the Matern kernel tends to the Gaussian: use {.fn kernel_gaussian} for the limit."))
  }
  check_positive(nu)
  new_kernel("matern", sigma, nu = as.numeric(nu))
}

kernel_names <- function() c("gaussian", "laplacian", "cauchy", "matern")

#' @export
print.kitchen_kernel <- function(x, ...) {
  cat("<kitchen kernel> ", kernel_label(x), "\n", sep = "")
  invisible(x)
}

# A kernel object from what the user passed as `kernel`: an object (checked),
# or a name completed with `sigma` and other parameters from `...`.
as_kernel <- function(kernel, sigma = NULL, ..., arg = rlang::caller_arg(kernel),
                      call = rlang::caller_env()) {
  if (is.character(kernel) && length(kernel) == 1L && !is.na(kernel)) {
    if (!kernel %in% kernel_names()) {
      abort_arg("{.arg {arg}} must be one of {.or {.val {kernel_names()}}} or a kernel object, not {shown_value(kernel)}.",
                call = call)
    }
    constructor <- get(paste0("kernel_", kernel), mode = "function")
    args <- list(...)
    unknown <- setdiff(names(args), setdiff(names(formals(constructor)), "sigma"))
    if (length(args) && (is.null(names(args)) || length(unknown) || any(names(args) == ""))) {
      # `...` reached here from a map builder's own `...`: name the builder too.
      builder <- tryCatch(rlang::call_name(rlang::frame_call(call)), error = function(e) NULL)
      abort_arg(c(if (is.null(builder) || length(unknown) == 0) {
                    "The {kernel} kernel takes no parameter{?s} {.arg {unknown}} (only named parameters of {.fn kernel_{kernel}})."
                  } else {
                    "{.fn {builder}} has no argument {.arg {unknown}}, and the {kernel} kernel no such parameter (only those of {.fn kernel_{kernel}})."
                  },
                  i = if ("n_threads" %in% unknown) "Threads are set where features are computed: {.fn predict}, {.fn krr_fit}."),
                call = call)
    }
    if (!is.null(sigma)) args$sigma <- sigma
    # Called through do.call(), the constructor's errors would name no
    # function: they are the caller's (rff(), krr_fit(), ...).
    return(tryCatch(do.call(constructor, args), kitchen_error_argument = function(cnd) {
      rlang::abort(cnd$message, body = cnd$body, class = "kitchen_error_argument", call = call,
                   use_cli_format = TRUE)
    }))
  }
  check_kernel(kernel, arg = arg, call = call)
  if (...length()) {
    abort_arg("Kernel parameters in {.arg ...} are only used with a kernel name; set them in the kernel object instead.",
              call = call)
  }
  if (!is.null(sigma)) {
    check_bandwidth(sigma, call = call)
    kernel$sigma <- bandwidth_values(sigma)
  }
  kernel
}

# A kernel object that may have been built by hand or tampered with: the
# message says which field is wrong.
check_kernel <- function(kernel, arg = rlang::caller_arg(kernel),
                         call = rlang::caller_env()) {
  problem <- kernel_problem(kernel)
  if (!is.null(problem)) {
    abort_arg(c("{.arg {arg}} must be a kernel name or an object made by {.fn kernel_gaussian}, {.fn kernel_laplacian}, {.fn kernel_cauchy} or {.fn kernel_matern}.",
                x = "{problem}"),
              call = call)
  }
  invisible(kernel)
}

# What is wrong with a kernel object (plain text, for "{problem}"), or NULL.
kernel_problem <- function(kernel) {
  if (!inherits(kernel, "kitchen_kernel") || !is.list(kernel)) {
    return(if (is.list(kernel)) "It is a list without the class kitchen_kernel." else
      paste0("It is ", shown_value(kernel), "."))
  }
  name <- kernel$name
  if (!is.character(name) || length(name) != 1L || !name %in% kernel_names()) {
    return(paste0("Its name is ", shown_value(name), "."))
  }
  sigma <- kernel$sigma
  if (!is.numeric(sigma) || length(sigma) < 1L || !all(sigma > 0 & is.finite(sigma))) {
    return(paste0("Its sigma is ", shown_value(sigma), ", not positive numbers."))
  }
  nu <- kernel$nu
  if (name == "matern" && !(is.numeric(nu) && length(nu) == 1L && isTRUE(nu > 0) && is.finite(nu))) {
    return(paste0("Its nu is ", shown_value(nu), ", not a positive number."))
  }
  NULL
}

# A bandwidth: one positive number, or one per input column (its length is
# checked against the data by check_bandwidth_length()).
check_bandwidth <- function(sigma, arg = rlang::caller_arg(sigma), call = rlang::caller_env()) {
  if (!is.numeric(sigma) || is.object(sigma) || length(sigma) < 1L || anyNA(sigma) ||
      !all(is.finite(sigma)) || !all(sigma > 0)) {
    abort_arg("{.arg {arg}} must be a positive number or a vector of positive numbers (one per input column), not {shown_value(sigma)}.",
              call = call)
  }
  invisible(sigma)
}

# Bandwidths as doubles, keeping the names of per-column ones (matched to
# the data's columns by bandwidth_for_columns()).
bandwidth_values <- function(sigma) {
  values <- as.numeric(sigma)
  if (length(sigma) > 1L) names(values) <- names(sigma)
  values
}

# Per-column bandwidths must match the input dimension d.
check_bandwidth_length <- function(sigma, d, arg = "sigma", call = rlang::caller_env()) {
  if (length(sigma) != 1L && length(sigma) != d) {
    abort_arg("{.arg {arg}} must hold one bandwidth or one per input column ({d}), not {length(sigma)}.",
              call = call)
  }
  invisible(sigma)
}

# The bandwidths in the order of the data's columns `col_names`, unnamed:
# named ones are matched by name (as predict() matches new data to a map's
# columns), so that `sigma = 1 / sort(relevance(fit))` keeps each column's
# own; for data without column names, names are those relevance() gives
# (x1, x2, ...), and any others are not used (a warning says so). Unnamed
# ones go by position.
bandwidth_for_columns <- function(sigma, d, col_names, arg = "sigma",
                                  call = rlang::caller_env()) {
  check_bandwidth_length(sigma, d, arg = arg, call = call)
  given <- names(sigma)
  if (length(sigma) > 1L && !is.null(given)) {
    unnamed_data <- is.null(col_names)
    col_names <- col_names %||% paste0("x", seq_len(d))  # relevance()'s labels
    if (anyDuplicated(given) || !setequal(given, col_names)) {
      if (unnamed_data) {
        cli::cli_warn(c("{.arg {arg}} has names but the data have no column names: its bandwidths go to the columns by position.",
                        i = "Names {.val {col_names[1]}}, {.val {col_names[2]}}, ... (those {.fn relevance} gives) would be matched."),
                      call = call)
        return(unname(sigma))
      }
      abort_arg(c("The names of {.arg {arg}} must be the column names of {.arg x}.",
                  x = "Not columns: {.val {setdiff(given, col_names)}}.",
                  x = "Without a bandwidth: {.val {setdiff(col_names, given)}}.",
                  x = if (anyDuplicated(given)) "Repeated: {.val {unique(given[duplicated(given)])}}."),
                call = call)
    }
    sigma <- sigma[col_names]
  }
  unname(sigma)
}

# Frequencies for random Fourier features: a d x m matrix whose columns are
# independent draws from the kernel's spectral law at sigma = 1 (divide by
# sigma for the kernel's own bandwidth). Uses R's random stream.
spectral_sample <- function(kernel, d, m) {
  n <- d * m
  w <- switch(kernel$name,
    gaussian = stats::rnorm(n),
    laplacian = stats::rcauchy(n),
    cauchy = stats::rexp(n) * sample(c(-1, 1), n, replace = TRUE),
    matern = {
      z <- matrix(stats::rnorm(n), d, m)
      u <- stats::rchisq(m, df = 2 * kernel$nu)
      z * rep(sqrt(2 * kernel$nu / u), each = d)
    })
  matrix(w, d, m)
}

# Pitches for random binning (Rahimi and Recht, 2007, section 4): n draws
# from p(delta) = delta k''(delta) of a separable kernel at the kernel's own
# bandwidth (per-column bandwidths recycle down the d rows of a d x n_grids
# matrix). Only kernels whose 1-d profile is convex on (0, Inf) have one.
binning_pitch <- function(kernel, n, call = rlang::caller_env()) {
  if (kernel$name == "laplacian") {
    return(stats::rgamma(n, shape = 2, scale = kernel$sigma))
  }
  why <- switch(kernel$name,
    gaussian = "its second derivative changes sign, so delta k''(delta) is not a probability law",
    cauchy = "its second derivative changes sign, so delta k''(delta) is not a probability law",
    matern = "it is not a product of one-dimensional kernels, which binning needs")
  # fastfood() takes rotation-invariant kernels only (check_radial_kernel())
  also <- if (kernel$name %in% c("gaussian", "matern")) " or {.fn fastfood}" else ""
  abort_arg(c("{.arg kernel} must have a random binning pitch law: the {kernel$name} kernel has none.",
              i = "Binning needs a separable kernel with a convex profile; {why}.",
              i = paste0("Use {.code kernel = \"laplacian\"}, or {.fn rff}", also,
                         " for the {kernel$name} kernel.")),
            call = call)
}

# The pitch law's quantiles at probabilities p (a matrix keeps its shape;
# a vector sigma recycles over p's rows, as in binning_pitch()), for a
# kernel binning_pitch() accepts.
binning_pitch_quantile <- function(kernel, p) {
  stats::qgamma(p, shape = 2, scale = kernel$sigma)
}
