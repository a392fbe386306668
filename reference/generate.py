"""A seeded random generator of request sequences for the reference comparison
(docs/reference.md, "Random sequences"). The same seed gives the same sequences (Python's
`random.Random` is specified to be reproducible for a seed), so a golden's sequences can be
regenerated, and `cargo xtask reference diff --random N --seed S` can be rerun.

A sequence works on one kind (ConfigMaps, Secrets, Deployments with `/status`, the custom
resource `widgets.example.com`, or Namespaces) and two names, with the requests of
docs/reference.md's list: create (labels, finalizers, generateName, dryRun, fieldValidation),
get, list (label selectors, limit), update (with a resourceVersion read earlier, none, or a
wrong one), patches (merge, JSON with `test`, strategic with directives), server-side apply
(two managers, force, a resourceVersion), delete (preconditions, grace periods, propagation
policies, dryRun) and finalizers added and removed. `{rv:N}` and `{uid:N}` refer to the N-th
answer of the sequence, whatever it was: a stale version and a failed answer are part of the
test.
"""

import random

CRD_GROUP = "example.com"

# The custom resource the capture creates a CustomResourceDefinition for (capture.py): v1,
# namespaced, any fields (x-kubernetes-preserve-unknown-fields), no subresources, as the model
# serves every custom resource (crates/core/src/store/kinds.rs).
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": CRD_GROUP,
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                  "listKind": "WidgetList"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object",
                                           "x-kubernetes-preserve-unknown-fields": True}},
        }],
    },
}

KINDS = {
    "configmap": ("/api/v1/namespaces/{ns}/configmaps", "v1", "ConfigMap"),
    "secret": ("/api/v1/namespaces/{ns}/secrets", "v1", "Secret"),
    "deployment": ("/apis/apps/v1/namespaces/{ns}/deployments", "apps/v1", "Deployment"),
    "widget": ("/apis/example.com/v1/namespaces/{ns}/widgets", "example.com/v1", "Widget"),
    "namespace": ("/api/v1/namespaces", "v1", "Namespace"),
}

WORDS = ["red", "green", "blue", "1", "2", "on", "off"]
SECRET_VALUES = ["cmVk", "Z3JlZW4=", "Ymx1ZQ=="]  # red, green, blue
FINALIZERS = ["example.com/hold", "example.com/audit"]
IMAGES = ["nginx:1.27", "nginx:1.28", "busybox:1"]


class Sequence:
    def __init__(self, rng, kind):
        self.rng = rng
        self.kind = kind
        self.collection, self.api_version, self.kind_name = KINDS[kind]
        self.requests = []

    def name(self):
        if self.kind == "namespace":
            return "{ns}-" + self.rng.choice(["a", "b"])
        return self.rng.choice(["a", "b"])

    def item(self, name):
        return f"{self.collection}/{name}"

    def earlier(self, field):
        """A template for the resourceVersion or uid of a random earlier answer."""
        if not self.requests:
            return "1"
        return "{%s:%d}" % (field, self.rng.randrange(len(self.requests)))

    def rv_choice(self):
        """A resourceVersion for a write: one read earlier, none, or one never issued."""
        r = self.rng.random()
        if r < 0.6:
            return self.earlier("rv")
        if r < 0.9:
            return None
        return self.rng.choice(["1", "999999999"])

    def labels(self):
        return {"app": self.rng.choice(["x", "y"])} if self.rng.random() < 0.6 else None

    def content(self):
        """The kind's own fields, random."""
        rng = self.rng
        if self.kind == "configmap":
            return {"data": {k: rng.choice(WORDS) for k in rng.sample(["k", "j", "color"],
                                                                     rng.randint(0, 2))}}
        if self.kind == "secret":
            if rng.random() < 0.3:
                return {"stringData": {"password": rng.choice(WORDS)}}
            return {"data": {"password": rng.choice(SECRET_VALUES)}}
        if self.kind == "deployment":
            containers = [{"name": "web", "image": rng.choice(IMAGES)}]
            if rng.random() < 0.4:
                containers.append({"name": "side", "image": rng.choice(IMAGES)})
            return {"spec": {
                "replicas": rng.randint(1, 3),
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": containers}},
            }}
        if self.kind == "widget":
            spec = {"size": rng.randint(1, 5)}
            if rng.random() < 0.5:
                spec["tags"] = rng.sample(WORDS, rng.randint(1, 3))
            return {"spec": spec}
        return {}

    def body(self, name, rv=None, finalizers=None):
        meta = {"name": name}
        labels = self.labels()
        if labels:
            meta["labels"] = labels
        if finalizers:
            meta["finalizers"] = finalizers
        if rv is not None:
            meta["resourceVersion"] = rv
        return {"apiVersion": self.api_version, "kind": self.kind_name, "metadata": meta,
                **self.content()}

    def add(self, method, path, body=None, type_=None):
        req = {"method": method, "path": path}
        if type_ is not None:
            req["type"] = type_
        if body is not None:
            req["body"] = body
        self.requests.append(req)

    # The operations.

    def create(self):
        rng = self.rng
        finalizers = [rng.choice(FINALIZERS)] if rng.random() < 0.3 else None
        body = self.body(self.name(), finalizers=finalizers)
        query = []
        if rng.random() < 0.1:
            query.append("dryRun=All")
        if rng.random() < 0.1:
            query.append("fieldValidation=" + rng.choice(["Strict", "Warn", "Ignore"]))
            body["bogus"] = "x"
        if rng.random() < 0.05 and self.kind != "namespace":
            del body["metadata"]["name"]
            body["metadata"]["generateName"] = "gen-"
        self.add("POST", self.collection + ("?" + "&".join(query) if query else ""), body)

    def get(self):
        self.add("GET", self.item(self.name()))

    def list(self):
        rng = self.rng
        query = []
        r = rng.random()
        if r < 0.3:
            query.append("labelSelector=" + rng.choice(["app%3Dx", "app%21%3Dx", "app",
                                                         "app+in+%28x%2Cy%29"]))
        elif r < 0.4:
            query.append("limit=1")
        if self.kind == "namespace":
            # Every namespace of the cluster differs between the two; only this sequence's.
            query = ["labelSelector=rvlab-sequence%3D{ns}"]
        self.add("GET", self.collection + ("?" + "&".join(query) if query else ""))

    def update(self):
        name = self.name()
        body = self.body(name, rv=self.rv_choice())
        if self.kind == "namespace":
            body["metadata"].setdefault("labels", {})["rvlab-sequence"] = "{ns}"
        self.add("PUT", self.item(name), body)

    def merge_patch(self):
        rng = self.rng
        patch = self.content()
        meta = {}
        r = rng.random()
        if r < 0.2:
            meta["finalizers"] = None
        elif r < 0.35:
            meta["finalizers"] = rng.sample(FINALIZERS, rng.randint(1, 2))
        elif r < 0.6:
            meta["labels"] = {"app": rng.choice(["x", "y", None])}
        if rng.random() < 0.4:
            meta["resourceVersion"] = self.earlier("rv")
        if meta:
            patch["metadata"] = meta
        self.add("PATCH", self.item(self.name()), patch, "merge")

    def json_patch(self):
        rng = self.rng
        ops = []
        if rng.random() < 0.5:
            ops.append({"op": "test", "path": "/metadata/resourceVersion",
                        "value": self.earlier("rv")})
        r = rng.random()
        if r < 0.3:
            ops.append({"op": "add", "path": "/metadata/labels", "value": {"app": "x"}})
        elif r < 0.5:
            ops.append({"op": "remove", "path": "/metadata/finalizers"})
        elif r < 0.7:
            ops.append({"op": "add", "path": "/metadata/finalizers/-",
                        "value": rng.choice(FINALIZERS)})
        else:
            field = {"configmap": "/data/k", "secret": "/data/password",
                     "deployment": "/spec/replicas", "widget": "/spec/size",
                     "namespace": "/metadata/annotations"}[self.kind]
            value = {"configmap": "z", "secret": "eg==", "deployment": 2, "widget": 9,
                     "namespace": {"note": "z"}}[self.kind]
            ops.append({"op": rng.choice(["add", "replace"]), "path": field, "value": value})
        self.add("PATCH", self.item(self.name()), ops, "json")

    def strategic_patch(self):
        rng = self.rng
        if self.kind == "deployment" and rng.random() < 0.6:
            container = {"name": rng.choice(["web", "side"]), "image": rng.choice(IMAGES)}
            if rng.random() < 0.3:
                container = {"name": container["name"], "$patch": "delete"}
            patch = {"spec": {"template": {"spec": {"containers": [container]}}}}
        else:
            patch = self.content()
            if rng.random() < 0.5:
                patch["metadata"] = {"$setElementOrder/finalizers": list(FINALIZERS)}
                patch["metadata"]["finalizers"] = [rng.choice(FINALIZERS)]
        self.add("PATCH", self.item(self.name()), patch, "strategic")

    def apply(self):
        rng = self.rng
        manager = rng.choice(["alice", "bob"])
        query = [f"fieldManager={manager}"]
        if rng.random() < 0.3:
            query.append("force=true")
        name = self.name()
        rv = self.earlier("rv") if rng.random() < 0.2 else None
        body = self.body(name, rv=rv)
        self.add("PATCH", self.item(name) + "?" + "&".join(query), body, "apply")

    def delete(self):
        rng = self.rng
        options = {}
        r = rng.random()
        if r < 0.25:
            options["preconditions"] = {"resourceVersion": self.earlier("rv")}
        elif r < 0.35:
            options["preconditions"] = {"uid": self.earlier("uid")}
        if rng.random() < 0.2:
            options["propagationPolicy"] = rng.choice(["Foreground", "Background", "Orphan"])
        if rng.random() < 0.15:
            options["gracePeriodSeconds"] = rng.choice([0, 30])
        query = "?dryRun=All" if rng.random() < 0.05 else ""
        body = {"apiVersion": "v1", "kind": "DeleteOptions", **options} if options else None
        self.add("DELETE", self.item(self.name()) + query, body)

    def status(self):
        rng = self.rng
        name = self.name()
        status = {"observedGeneration": rng.randint(1, 3), "replicas": rng.randint(0, 3)}
        if rng.random() < 0.5:
            self.add("PATCH", self.item(name) + "/status", {"status": status}, "merge")
        else:
            body = self.body(name, rv=self.rv_choice())
            body["status"] = status
            self.add("PUT", self.item(name) + "/status", body)


OPERATIONS = [
    ("create", 4), ("get", 2), ("list", 1), ("update", 3), ("merge_patch", 3),
    ("json_patch", 2), ("strategic_patch", 2), ("apply", 3), ("delete", 2), ("status", 1),
]


def sequence(rng, index):
    kind = rng.choice(["configmap", "configmap", "secret", "deployment", "deployment", "widget",
                       "namespace"])
    s = Sequence(rng, kind)
    # Most sequences start with an object to work on.
    if rng.random() < 0.85:
        s.create()
    ops = [op for op, weight in OPERATIONS for _ in range(weight)
           if not (op == "status" and kind != "deployment" and rng.random() < 0.8)]
    for _ in range(rng.randint(3, 9)):
        getattr(s, rng.choice(ops))()
    if kind == "namespace":
        # A namespace this sequence creates carries its label, for the list above.
        for req in s.requests:
            body = req.get("body")
            if req["method"] == "POST" and isinstance(body, dict):
                body["metadata"].setdefault("labels", {})["rvlab-sequence"] = "{ns}"
    return {"name": f"random-{index}-{kind}", "requests": s.requests}


def corpus(seed, n):
    rng = random.Random(seed)
    return [sequence(rng, i) for i in range(n)]
