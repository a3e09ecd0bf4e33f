# The capacity-planning lab. Every target sets up what it needs (a venv with pinned packages).
# On a machine with conda, `conda env create -f environment.yml` gives the same packages.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cksum < pyproject.toml | cut -d' ' -f1)

.DEFAULT_GOAL := help
.PHONY: help setup compile run test calibrate validate sweep bench lab notebooks handout clean

help:            ## list every target with one line each
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	rm -f $(VENV)/.installed-* && touch $@

# The lab's own modules byte-compiled, as pip compiles an installed package's: an editable install
# compiles nothing, and where PYTHONDONTWRITEBYTECODE is set (many container images) every process
# would compile them again, each kernel of a papermill sweep about 60 ms. Only what changed is
# compiled again.
compile: $(STAMP) ## byte-compile the lab's modules (done by run, sweep, bench and lab)
	$(PY) -m compileall -q model

setup: compile  ## create .venv and install the pinned packages (done by every target)

run: compile     ## the main job: calibrate, then predict every measured row beside its measurement
	$(PY) -m model calibrate
	$(PY) -m model validate --report

test: $(STAMP)   ## lint and format check (ruff), then every test, notebooks included (pytest --nbval-lax)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest --nbval-lax -q tests notebooks

calibrate: $(STAMP) ## fit the free parameters; writes data/calibrated/
	$(PY) -m model calibrate

validate: $(STAMP) ## measured beside predicted, table by table (no refit)
	$(PY) -m model validate

sweep: compile   ## run a grid of design points: make sweep GRID=data/sweeps/sas_lanes.yaml [WORKERS=2] [OUT=folder] [SCHEDULER=tcp://host:8786]
	$(PY) -m model sweep "$(GRID)" $(if $(WORKERS),--workers $(WORKERS)) $(if $(filter command line,$(origin OUT)),--out "$(OUT)") $(if $(filter command line,$(origin SCHEDULER)),--scheduler "$(SCHEDULER)")

bench: compile   ## speed figures: engine against raw SimPy, simulate() per scenario, validate, scaling curves
	$(PY) -m model.bench
	$(PY) -m model.scaling

notebooks: $(STAMP) ## re-run every notebook in place (after a model or calibration change), outputs kept
	for nb in notebooks/*.ipynb notebooks/course/*.ipynb; do $(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace "$$nb" || exit 1; done

handout: $(STAMP) ## the course lessons for students, solutions removed, run: handouts/ [OUT=folder]
	$(PY) -m model.handout --out $(or $(OUT),handouts)

lab: compile     ## open JupyterLab on notebooks/
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/

clean:           ## remove the venv and generated reports
	rm -rf $(VENV) reports/*.csv reports/*.png
