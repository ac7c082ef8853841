# Random draws for maps come from R's generator on the main thread, so
# set.seed() before a call reproduces a map. A `seed` argument is used
# locally: the user's random stream (.Random.seed) and generator kinds are
# left as they were. It always draws from R's default generators, so that a
# seed gives the same map whatever generator the session uses (tune, for
# one, fits its models under "L'Ecuyer-CMRG").
with_seed <- function(seed, code, call = rlang::caller_env()) {
  if (is.null(seed)) return(code)
  check_count(seed, min = -.Machine$integer.max, max = .Machine$integer.max, arg = "seed",
              call = call)
  env <- globalenv()
  had_seed <- exists(".Random.seed", envir = env, inherits = FALSE)
  if (had_seed) old <- get(".Random.seed", envir = env, inherits = FALSE)
  kinds <- RNGkind()
  on.exit({
    suppressWarnings(RNGkind(kinds[1], kinds[2], kinds[3]))  # "Rounding" warns
    if (had_seed) assign(".Random.seed", old, envir = env) else rm(".Random.seed", envir = env)
  })
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  code
}

# Another seed from a given one (NULL from NULL), for random numbers that
# must not repeat the map's draws (krr_fit()'s CV folds).
derived_seed <- function(seed) {
  if (is.null(seed)) return(NULL)
  as.integer((as.double(seed) * 69069 + 12345) %% .Machine$integer.max)
}
