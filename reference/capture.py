#!/usr/bin/env python3
"""Sends a corpus of request sequences to a real kube-apiserver and writes its answers as a
golden file (docs/reference.md, "Goldens"). Run by `cargo xtask reference capture`, which starts
the reference and passes its kubeconfig; the Python standard library only.

Each sequence runs in a namespace of its own, created first. In a request's path and body,
`{ns}` is that namespace, `{rv:N}` the resourceVersion and `{uid:N}` the uid of the object the
sequence's N-th response returned. `--random N --seed S` sends generate.py's random sequences
instead of a corpus file. The golden keeps each request as written (templated) and
each answer as the server sent it (status code and JSON body; a watch's, which must have a
`timeoutSeconds`, as the list of the events its stream carried); the replay normalises both
sides.
"""

import argparse
import email.utils
import json
import re
import ssl
import sys
import time
import urllib.error
import urllib.request

import generate

USER_AGENT = "rvlab-capture/1"

CONTENT_TYPES = {
    None: "application/json",
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}


def kubeconfig(path):
    """server, certificate-authority and token of the kubeconfig `reference start` writes."""
    fields = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*(server|certificate-authority|token):\s*(\S+)\s*$", line)
            if m:
                fields[m.group(1)] = m.group(2)
    return fields["server"], fields["certificate-authority"], fields["token"]


class Client:
    def __init__(self, server, ca, token):
        self.server = server
        self.token = token
        self.context = ssl.create_default_context(cafile=ca)

    def send(self, method, path, content_type=None, body=None, agent=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/json")
        # The default field manager is the User-Agent up to its first "/" (the apiserver's
        # prefixFromUserAgent): the replay's writer has this name.
        # A corpus request's `agent` (the lessons' clients: alice, bob) is its writer.
        req.add_header("User-Agent", f"{agent}/1" if agent else USER_AGENT)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.context, timeout=30) as resp:
                return resp.status, resp.read(), served_at(resp.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), served_at(e.headers)


def served_at(headers):
    """The apiserver's `Date` header as Unix seconds: the second its timestamps carry (the
    replay gives the model the same clock, so managedFields entries sort as they did)."""
    date = headers.get("Date")
    return int(email.utils.parsedate_to_datetime(date).timestamp()) if date else None


def substitute(value, ns, responses):
    """The request with `{ns}`, `{rv:N}` and `{uid:N}` replaced in every string, and `{x:N}`
    by N times `x` (a large value without a large corpus)."""
    if isinstance(value, str):
        def one(m):
            if m.group(1) == "ns":
                return ns
            if m.group(1).startswith("x:"):
                return "x" * int(m.group(1)[2:])
            kind, n = m.group(1).split(":")
            # An answer without one (a Status, a failure) gives "", as in the replay.
            body = responses[int(n)]["body"]
            meta = body.get("metadata", {}) if isinstance(body, dict) else {}
            return meta.get("resourceVersion" if kind == "rv" else "uid", "")
        return re.sub(r"\{(ns|rv:\d+|uid:\d+|x:\d+)\}", one, value)
    if isinstance(value, list):
        return [substitute(v, ns, responses) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, ns, responses) for k, v in value.items()}
    return value


def decoded(raw):
    try:
        return json.loads(raw)
    except ValueError:
        return {"text": raw.decode("utf-8", "replace")}


def is_watch(path):
    """A watch request: `watch` in the query, true as Go's strconv.ParseBool reads it."""
    query = path.split("?", 1)[1] if "?" in path else ""
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if key == "watch":
            return value.lower() not in ("0", "f", "false", "n", "no")
    return False


def watched(raw):
    """A watch's answer: the events the stream carried until the server ended it (its
    `timeoutSeconds`), as a list, one per line of the stream. An object's GET ignores `watch`
    and answers the object: that is kept as it is."""
    try:
        whole = json.loads(raw)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "type" not in whole:
        return whole
    return [json.loads(line) for line in raw.decode().splitlines() if line.strip()]


def install_crd(client):
    """The CustomResourceDefinition of generate.CRD, created once and waited for until its
    group is served."""
    code, raw, _ = client.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                            CONTENT_TYPES[None], generate.CRD)
    if code not in (201, 409):
        sys.exit(f"creating the CustomResourceDefinition answered {code}: {raw[:300]!r}")
    for _ in range(100):
        code, _, _ = client.send("GET", "/apis/example.com/v1/namespaces/default/widgets")
        if code == 200:
            return
        time.sleep(0.1)
    sys.exit("the CustomResourceDefinition widgets.example.com is not served after 10 s")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kubeconfig", required=True)
    p.add_argument("--corpus", help="a corpus file of reference/corpus/")
    p.add_argument("--random", type=int, help="N random sequences (generate.py) instead")
    p.add_argument("--seed", type=int, default=1, help="the random sequences' seed")
    p.add_argument("--out", required=True)
    p.add_argument("--etcd", required=True)
    args = p.parse_args()
    client = Client(*kubeconfig(args.kubeconfig))
    code, raw, _ = client.send("GET", "/version")
    if code != 200:
        sys.exit(f"GET /version answered {code}")
    version = json.loads(raw)["gitVersion"]
    if args.random is not None:
        corpus = generate.corpus(args.seed, args.random)
        source = {"random": args.random, "seed": args.seed}
    else:
        with open(args.corpus, encoding="utf-8") as f:
            corpus = json.load(f)
        source = {"corpus": args.corpus.rsplit("/", 1)[-1]}
    install_crd(client)
    # Namespaces named by the corpus and the sequence's index: a fresh reference per capture
    # (`cargo xtask reference capture`) makes them unique, and a re-capture differs from the
    # committed golden only where an answer does.
    prefix = f"random{args.seed}" if args.random is not None else \
        args.corpus.rsplit("/", 1)[-1].removesuffix(".json")
    sequences = []
    for i, seq in enumerate(corpus):
        ns = f"{prefix}-{i}"
        code, raw, created_at = client.send("POST", "/api/v1/namespaces", CONTENT_TYPES[None],
                                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        if code != 201:
            sys.exit(f"creating namespace {ns} answered {code}: {raw[:300]!r}")
        responses = []
        for req in seq["requests"]:
            path = substitute(req["path"], ns, responses)
            body = substitute(req.get("body"), ns, responses)
            watch = is_watch(path)
            if watch and "timeoutSeconds=" not in path:
                sys.exit(f"{seq['name']}: a watch needs timeoutSeconds (it would not end): {path}")
            code, raw, at = client.send(req["method"], path, CONTENT_TYPES[req.get("type")],
                                        body, req.get("agent"))
            answer = watched(raw) if watch and code == 200 else decoded(raw)
            responses.append({"code": code, "at": at, "body": answer})
        sequences.append({"name": seq["name"], "namespace": ns, "created_at": created_at,
                          "requests": seq["requests"], "responses": responses})
    # One sequence per line: compact, and a re-capture's diff shows which sequences changed.
    with open(args.out, "w", encoding="utf-8") as f:
        head = json.dumps({"kubernetes": version, "etcd": args.etcd})
        f.write('{"reference": %s,\n "source": %s,\n "sequences": [\n' % (head, json.dumps(source)))
        f.write(",\n".join(json.dumps(s, separators=(",", ":")) for s in sequences))
        f.write("\n]}\n")
    n = sum(len(s["requests"]) for s in sequences)
    print(f"capture: {len(sequences)} sequences, {n} requests, kubernetes {version} -> {args.out}")


if __name__ == "__main__":
    main()
