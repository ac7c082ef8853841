# The two commands of the README, and the pieces they are made of.
.PHONY: deps install demo test document bench clean

deps:
	bash tools/install-deps.sh

install: deps
	R CMD INSTALL --preclean .

demo: install
	Rscript -e 'source(system.file("scripts", "demo.R", package = "kitchen"))'

test: deps
	bash tools/check.sh

document:
	Rscript -e 'Rcpp::compileAttributes(); roxygen2::roxygenise()'
	rm -f src/*.o src/*.so  # roxygen compiles with -O0; never install those

# Every benchmark (bench/README.md); KITCHEN_BENCH_QUICK=1 for the short versions.
bench: install
	bash bench/run-all.sh

clean:
	rm -rf check src/*.o src/*.so
