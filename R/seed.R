# Random draws for maps come from R's generator on the main thread, so
# set.seed() before a call reproduces a map. A `seed` argument is used
# locally: the user's random stream (.Random.seed) is left as it was.
with_seed <- function(seed, code, call = rlang::caller_env()) {
  if (is.null(seed)) return(code)
  check_count(seed, min = -.Machine$integer.max, arg = "seed", call = call)
  env <- globalenv()
  had_seed <- exists(".Random.seed", envir = env, inherits = FALSE)
  if (had_seed) old <- get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(if (had_seed) assign(".Random.seed", old, envir = env) else
    rm(".Random.seed", envir = env))
  set.seed(seed)
  code
}
