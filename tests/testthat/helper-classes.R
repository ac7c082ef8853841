# The class with the largest least-squares score: what predict(type =
# "class") gives for a fit without class probabilities, to compare such a
# fit (chunked without CV, FALKON) with the same fit in memory, whose
# classes come from its calibrated probabilities.
largest_score_class <- function(fit, x) {
  scores <- as.matrix(predict(fit, x))
  factor(fit$response$levels[max.col(scores, "first")],
         levels = fit$response$factor_levels %||% fit$response$levels)
}
