library(kitchen)
data(cpu_act)                                  # 8192 rows, 21 inputs, shipped with kitchen
x <- log1p(as.matrix(cpu_act[names(cpu_act) != "usr"]))   # counts with long right tails
y <- cpu_act$usr
set.seed(2007)
train <- sample(nrow(x), 6554)                 # Rahimi & Recht's split sizes
map <- rff(x[train, ], n_features = 300, seed = 1)
fit <- krr_fit(x[train, ], y[train], map, sigma = "auto", lambda = "gcv")   # sigma and lambda by GCV
yhat <- predict(fit, x[-train, ])
sqrt(sum((yhat - y[-train])^2) / sum(y[-train]^2))         # test error: 0.0309 (paper: 3.6%)
