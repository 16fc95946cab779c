# Sourced by run.sh and fuzz.sh: sets `venv` to the Python venv with
# haystack-ai 3.4.1 (HOOKHARNESS_REF_VENV, default .venv-ref), creating it
# when missing.
venv="${HOOKHARNESS_REF_VENV:-.venv-ref}"
if [ ! -x "$venv/bin/python" ]; then
  echo "creating $venv with haystack-ai 3.4.1 (conformance/requirements.txt)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r conformance/requirements.txt
fi
