# The class calibration's form for least-squares fits with 3 or more
# classes: the full multinomial model on the scores ((K + 1)(K - 1)
# coefficients) against "vector scaling" (each class's link on its own
# score, 2K - 1), and kitchen's default rule between them: test log-loss
# and accuracy (classes from the probabilities) over 3 random 70/30 splits.
#   Rscript bench/calibration-form.R [data sets]   # iris,Glass,Vehicle,Satellite,hpc,letter,letter5000
suppressMessages(library(kitchen))
e <- new.env()
utils::data(list = c("LetterRecognition", "Satellite", "Vehicle", "Glass"), package = "mlbench", envir = e)
utils::data(list = "hpc_data", package = "modeldata", envir = e)
hpc <- as.data.frame(e$hpc_data)
hpc$protocol <- NULL
set.seed(5000)
letter5000 <- e$LetterRecognition[sample(nrow(e$LetterRecognition), 5000), ]
sets <- list(iris = list(iris, "Species"), Glass = list(e$Glass, "Type"),
             Vehicle = list(e$Vehicle, "Class"), Satellite = list(e$Satellite, "classes"),
             hpc = list(hpc, "class"), letter = list(e$LetterRecognition, "lettr"),
             letter5000 = list(letter5000, "lettr"))
chosen <- if (length(commandArgs(TRUE))) strsplit(commandArgs(TRUE)[1], ",")[[1]] else names(sets)
ns <- asNamespace("kitchen")
default_rule <- get("few_rows_for_full_calibration", ns)
use_rule <- function(rule) {
  unlockBinding("few_rows_for_full_calibration", ns)
  assign("few_rows_for_full_calibration", rule, ns)
}
variants <- list(full = function(inputs, weights) FALSE, vector = function(inputs, weights) TRUE,
                 default = default_rule)
rows <- list()
for (nm in chosen) for (split in 1:3) {
  d <- sets[[nm]][[1]]
  resp <- sets[[nm]][[2]]
  d[[resp]] <- droplevels(factor(d[[resp]]))
  set.seed(split)
  train <- sample(nrow(d), round(0.7 * nrow(d)))
  test <- setdiff(seq_len(nrow(d)), train)
  truth <- as.character(d[[resp]][test])
  for (variant in names(variants)) {
    use_rule(variants[[variant]])
    set.seed(1)
    fit <- krr_fit(stats::as.formula(paste(resp, "~ .")), d[train, ], n_threads = 2, verbose = FALSE)
    p <- predict(fit, d[test, ], type = "prob")
    rows[[length(rows) + 1]] <- data.frame(
      data = nm, K = nlevels(d[[resp]]), train = length(train), split = split, form = variant,
      log_loss = -mean(log(pmax(p[cbind(seq_along(truth), match(truth, colnames(p)))], 1e-15))),
      accuracy = mean(colnames(p)[max.col(p, "first")] == truth))
    print(rows[[length(rows)]])
  }
}
use_rule(default_rule)
out <- do.call(rbind, rows)
means <- aggregate(cbind(log_loss, accuracy) ~ data + K + train + form, out, mean)
print(means[order(means$data, means$form), ], digits = 4)
saveRDS(out, file.path(tempdir(), "calibration-form.rds"))  # the per-split rows
