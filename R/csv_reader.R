# The CSV reader of chunked() files: data.table::fread() when data.table
# (Suggests) is installed, several times faster than utils::read.csv() on
# large chunks (bench/csv-reader.R), else read.csv(). Both give the same
# columns and types; their decimal parsers round a few numbers in 10,000
# to neighbouring doubles (one unit in the last place), so fits agree to
# about 1e-13, not bit for bit. options(kitchen.csv_reader = "read.csv")
# (or "fread") forces one.

read_csv_chunk <- function(path) {
  if (csv_reader(path) == "fread") {
    frame <- data.table::fread(path, data.table = FALSE, check.names = FALSE,
                               integer64 = "double", showProgress = FALSE)
    return(frame)
  }
  utils::read.csv(path, check.names = FALSE)
}

# "fread" or "read.csv". fread() needs R.utils for .gz files: those go to
# read.csv().
csv_reader <- function(path = NULL, call = rlang::caller_env()) {
  forced <- getOption("kitchen.csv_reader")
  if (!is.null(forced)) {
    forced <- match_choice(forced, c("fread", "read.csv"), arg = "options(kitchen.csv_reader)",
                           call = call)
    if (forced == "fread") rlang::check_installed("data.table", "for `options(kitchen.csv_reader = \"fread\")`.")
  }
  gz <- !is.null(path) && grepl("\\.gz$", path, ignore.case = TRUE)
  if (gz) return("read.csv")
  forced %||% if (requireNamespace("data.table", quietly = TRUE)) "fread" else "read.csv"
}

# For print(): which reader CSV files get, and how to get the faster one.
csv_reader_label <- function() {
  if (csv_reader() == "fread") return("by extension (data.table::fread / readRDS)")
  if (requireNamespace("data.table", quietly = TRUE)) {
    return("by extension (read.csv, as set by options(kitchen.csv_reader) / readRDS)")
  }
  "by extension (read.csv / readRDS; install data.table for a faster CSV reader)"
}
