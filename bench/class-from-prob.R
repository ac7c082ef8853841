# Least-squares classification: the class with the largest one-vs-rest score
# (predict(type = "class")) against the class with the largest calibrated
# probability (predict(type = "prob")), on the defaults suite's class data
# sets and a few more from mlbench, over the fixed split and split seeds 1-4.
#   Rscript bench/class-from-prob.R [D]
suppressMessages(source("bench/defaults.R"))
D <- if (length(commandArgs(TRUE))) as.numeric(commandArgs(TRUE)[1]) else 1000
env <- new.env()
utils::data(list = c("Glass", "Vehicle", "BreastCancer", "Satellite"), package = "mlbench", envir = env)
more <- list(
  dataset("Glass", env$Glass, "Type", 160, "6 classes, 214 rows"),
  dataset("Vehicle", env$Vehicle, "Class", 600, "4 classes"),
  dataset("BreastCancer", stats::na.omit(transform(env$BreastCancer, Id = NULL,
          Cl.thickness = as.numeric(Cl.thickness), Cell.size = as.numeric(Cell.size),
          Cell.shape = as.numeric(Cell.shape), Marg.adhesion = as.numeric(Marg.adhesion),
          Epith.c.size = as.numeric(Epith.c.size), Bare.nuclei = as.numeric(Bare.nuclei),
          Bl.cromatin = as.numeric(Bl.cromatin), Normal.nucleoli = as.numeric(Normal.nucleoli),
          Mitoses = as.numeric(Mitoses))), "Class", 500, "2 classes, ordered factors as numbers"),
  dataset("Satellite", env$Satellite, "classes", 4000, "6 classes, 36 columns"))
sets <- c(Filter(is_class, load_datasets()), more)
rows <- list()
for (set in sets) for (split_seed in 0:4) {
  s <- set
  if (split_seed > 0) {
    sp <- split_rows(nrow(s$frame), length(s$train), length(s$test), seed = split_seed)
    s$train <- sp$train; s$test <- sp$test
  }
  set.seed(1)
  fit <- krr_fit(formula_of(s), s$frame[s$train, ], features = "rff", n_features = D,
                 n_threads = threads, verbose = FALSE)
  new <- s$frame[s$test, ]
  by_score <- predict(fit, new, type = "class")
  prob <- predict(fit, new, type = "prob")
  by_prob <- factor(colnames(prob)[max.col(prob, "first")], levels(by_score))
  truth <- new[[s$response]]
  rows[[length(rows) + 1]] <- data.frame(data = s$name, split = split_seed, test_rows = length(truth),
    wrong_by_score = sum(by_score != truth), wrong_by_prob = sum(by_prob != truth),
    disagree = sum(by_score != by_prob))
  print(rows[[length(rows)]])
}
out <- do.call(rbind, rows)
print(out)
print(aggregate(cbind(test_rows, wrong_by_score, wrong_by_prob, disagree) ~ data, out, sum))
saveRDS(out, sprintf("/tmp/class-from-prob-%d.rds", D))
