#!/usr/bin/env python3
"""Extracts the strategic merge patch test vectors of kubernetes/apimachinery into JSON.

Source: kubernetes/apimachinery, tag v0.32.5, pkg/util/strategicpatch/patch_test.go.
Rerun (from this directory, with a clone or bare git dir of kubernetes/apimachinery):

    python3 extract.py /path/to/apimachinery.git   # default: /work/.mirror/kubernetes+apimachinery/repo

It writes two-way.json, three-way.json, apply.json, errors.json and sort.json next to itself
(see README.md for what each holds and how Go runs it). Needs PyYAML.

The YAML-table cases (Go's `[]byte` YAML vars decoded into `map[string]interface{}`) are fed by
the Go test through `sortMergeListsByName` with the mergeItem schema before any comparison; this
script does the same (a port of that function below, checked against TestSortMergeLists' own
cases), so the JSON holds exactly the documents Go compares. The raw cases are not sorted by Go
and are written as they are.
"""

import json
import os
import re
import subprocess
import sys

import yaml

TAG = "v0.32.5"
FILE = "pkg/util/strategicpatch/patch_test.go"
SRC = f"kubernetes/apimachinery {TAG} {FILE}"
JFILE = "pkg/util/jsonmergepatch/patch_test.go"
JSRC = f"kubernetes/apimachinery {TAG} {JFILE}"
HERE = os.path.dirname(os.path.abspath(__file__))

# --- the mergeItem schema's merge facts (MergeItem / RetainKeysMergeItem in patch_test.go) ---
# field -> (patch strategy of the list, merge key, element type) for the lists; maps -> type.
MERGE_ITEM = {
    "lists": {
        "mergingList": ("merge", "name", "mergeItem"),
        "nonMergingList": ("", "", "mergeItem"),
        "mergingIntList": ("merge", "", None),
        "nonMergingIntList": ("", "", None),
        "mergeItemPtr": ("merge", "name", "mergeItem"),
        "retainKeysMergingList": ("merge", "name", "mergeItem"),
    },
    "structs": {
        "mergeItemPtr": "mergeItem",
        "retainKeysMap": "retainKeysMergeItem",
        "replacingItem": None,
        "simpleMap": None,
    },
}
RETAIN_KEYS_ITEM = {
    "lists": {
        "mergingList": ("merge", "name", "mergeItem"),
        "nonMergingList": ("", "", "mergeItem"),
        "mergingIntList": ("merge", "", None),
    },
    "structs": {"simpleMap": None},
}
TYPES = {"mergeItem": MERGE_ITEM, "retainKeysMergeItem": RETAIN_KEYS_ITEM}


def go_v(x):
    """Go's fmt.Sprintf("%v", x) for the JSON scalars util/json decodes (int64, float64, ...)."""
    if x is None:
        return "<nil>"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        # Go's %v of a float64 (%g, shortest digits) is not ported: no float sort keys here.
        raise ValueError(f"float sort key {x!r}: not expected in this data")
    if isinstance(x, str):
        return x
    raise ValueError(f"unexpected sort key {x!r}")


def go_sort(items, key):
    """Go's sort.Sort with Less(i, j) = StringsAreSorted([key(i), key(j)]) (i.e. <=).

    For up to 12 elements Go's pdqsort is an insertion sort; with a `<=` Less equal keys end
    up in reverse order. Longer lists are not in this data (asserted)."""
    s = list(items)
    if len(s) > 12:
        raise ValueError("a list longer than 12: Go's pdqsort path is not ported")
    for i in range(1, len(s)):
        j = i
        while j > 0 and key(s[j]) <= key(s[j - 1]):
            s[j], s[j - 1] = s[j - 1], s[j]
            j -= 1
    return s


def go_eq(a, b):
    """Go's interface == on decoded JSON scalars (same dynamic type and value)."""
    return type(a) is type(b) and a == b


def dedup_scalars(s):
    """Go's deduplicateScalars (its swap-with-last algorithm, order included)."""
    s = list(s)
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if go_eq(s[i], s[j]):
                s[j] = s[length]
                s = s[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s


def sort_map(m, t):
    """sortMergeListsByNameMap."""
    facts = TYPES.get(t) if t else None
    out = {}
    for k, v in m.items():
        if k == "$retainKeys" or k.startswith("$deleteFromPrimitiveList"):
            v = go_sort(v, go_v)
        elif k.startswith("$setElementOrder") or k == "$patch":
            pass
        elif isinstance(v, dict):
            sub = facts["structs"].get(k, "?") if facts else None
            if facts and sub == "?":
                sub = None
                if k not in facts["lists"]:
                    raise ValueError(f"unknown struct field {k} in {t}")
            v = sort_map(v, sub)
        elif isinstance(v, list):
            lf = facts["lists"].get(k) if facts else None
            if facts and lf is None:
                raise ValueError(f"unknown list field {k} in {t}")
            if lf and lf[0] == "merge":
                v = sort_array(v, lf[2], lf[1], True)
        out[k] = v
    return out


def sort_array(s, t, key, recurse):
    """sortMergeListsByNameArray."""
    if not s:
        return s
    if not all(isinstance(e, dict) for e in s):
        return go_sort(dedup_scalars(s), go_v)
    s = [sort_map(e, t) if recurse else e for e in s]
    return go_sort(s, lambda e: go_v(e.get(key)))


# --- reading the Go source ---


def go_source(gitdir, file=FILE):
    return subprocess.run(
        ["git", "-C", gitdir, "show", f"{TAG}:{file}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def check_doc(x, where):
    """The YAML must give what sigs.k8s.io/yaml + encoding/json give: string keys, no floats."""
    if isinstance(x, dict):
        for k, v in x.items():
            if not isinstance(k, str):
                raise ValueError(f"{where}: non-string key {k!r}")
            check_doc(v, where)
    elif isinstance(x, list):
        for v in x:
            check_doc(v, where)
    elif isinstance(x, float):
        raise ValueError(f"{where}: a float in YAML data")


def yaml_var(src, name):
    m = re.search(r"^var " + name + r" = \[\]byte\(`\n(.*?)`\)", src, re.S | re.M)
    doc = yaml.safe_load(m.group(1))
    check_doc(doc, name)
    return doc["testCases"]


def raw_cases(src, name):
    m = re.search(r"^var " + name + r" = \[\]StrategicMergePatchRawTestCase\{\n(.*?)^\}\n", src, re.S | re.M)
    body = m.group(1)
    out = []
    for chunk in re.split(r"\n\t\{\n\t\tDescription: ", "\n" + body)[1:]:
        desc = json.loads(re.match(r'(".*?(?<!\\)")', chunk).group(1))
        case = {"description": desc}
        for f, text in re.findall(r"\t\t\t(\w+): \[\]byte\(`(.*?)`\)", chunk, re.S):
            doc = yaml.safe_load(text)
            check_doc(doc, f"{name}: {desc}")
            case[f] = doc
        e = re.search(r'ExpectedError: (".*?")', chunk)
        if e:
            case["ExpectedError"] = json.loads(e.group(1))
        out.append(case)
    return out


def map_cases(src, func):
    """The `testcases := map[string]struct{...}{ "name": { Field: `json`, ... }, ... }` of a test."""
    start = src.index(f"func {func}(")
    body = src[start:]
    body = body[body.index("}{\n") + 3 :]
    body = body[: body.index("\n\t}\n")]
    out = {}
    for name, fields in re.findall(r'\t\t"([^"]+)": \{\n(.*?)\n\t\t\},', body, re.S):
        out[name] = {f: v for f, v in re.findall(r"\t\t\t(\w+):\s+`(.*?)`,", fields, re.S)}
    return out


UNKNOWN_SKIP = (
    "the store's schema data is cut to fields with facts (store/schema.rs), so a field it "
    "does not name is a declared one without facts and creation cannot tell an undeclared "
    "field (Go: `unable to find api field`); kubectl validates fields before patching"
)


def src_of(func, desc):
    return f"{SRC} {func}: {desc}"


def absent_none(d):
    return {k: v for k, v in d.items() if v is not None}


def main():
    gitdir = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/kubernetes+apimachinery/repo"
    src = go_source(gitdir)
    mi = "merge-item.schema"

    # TestSortMergeLists: a self-check of the port of sortMergeListsByName above.
    sort_cases = []
    for c in yaml_var(src, "sortMergeListTestCaseData"):
        got = sort_map(c["original"], "mergeItem")
        assert got == c["sorted"], c["description"]
        sort_cases.append(
            {
                "source": src_of("TestSortMergeLists sortMergeListTestCaseData", c["description"]),
                "schema": mi,
                "original": c["original"],
                "sorted": c["sorted"],
            }
        )

    def srt(doc):
        return None if doc is None else sort_map(doc, "mergeItem")

    two, three, apply, errors = [], [], [], []

    # TestStrategicMergePatch: createStrategicMergePatchTestCaseData (YAML, sorted by Go).
    data = "TestStrategicMergePatch createStrategicMergePatchTestCaseData"
    for c in yaml_var(src, "createStrategicMergePatchTestCaseData"):
        d = c["description"]
        result2 = c.get("twoWayResult") if c.get("twoWayResult") is not None else c.get("modified")
        two.append(
            absent_none(
                {
                    "source": src_of(data, d),
                    "schema": mi,
                    "original": srt(c.get("original")),
                    "modified": srt(c.get("modified")),
                    "twoWay": srt(c.get("twoWay")),
                    "result": srt(result2),
                }
            )
        )
        three.append(
            absent_none(
                {
                    "source": src_of(data, d),
                    "schema": mi,
                    "conflict": "conflict" in d,
                    "original": srt(c.get("original")),
                    "modified": srt(c.get("modified")),
                    "current": srt(c.get("current")),
                    "threeWay": srt(c.get("threeWay")),
                    "result": srt(c.get("result")),
                }
            )
        )

    def raw_two_three(func, var):
        for c in raw_cases(src, var):
            d = c["description"]
            result2 = c.get("TwoWayResult") if "TwoWayResult" in c else c.get("Modified")
            base = {"source": src_of(f"{func} {var}", d), "schema": mi}
            two.append(
                absent_none(
                    dict(
                        base,
                        original=c.get("Original"),
                        modified=c.get("Modified"),
                        twoWay=c.get("TwoWay"),
                        result=result2,
                        expectedError=c.get("ExpectedError"),
                    )
                )
            )
            three.append(
                absent_none(
                    dict(
                        base,
                        conflict="conflict" in d,
                        original=c.get("Original"),
                        modified=c.get("Modified"),
                        current=c.get("Current"),
                        threeWay=c.get("ThreeWay"),
                        result=c.get("Result"),
                        expectedError=c.get("ExpectedError"),
                    )
                )
            )

    raw_two_three("TestStrategicMergePatch", "strategicMergePatchRawTestCases")
    raw_two_three("TestReplaceWithRawExtension", "replaceRawExtensionPatchTestCases")

    # TestUnknownField: JSON strings, compared byte for byte; schema mergeItem.
    for name, tc in sorted(map_cases(src, "TestUnknownField").items()):
        s = src_of("TestUnknownField", name)
        j = lambda k: json.loads(tc[k]) if k in tc else None  # noqa: E731
        if "ExpectedTwoWayErr" in tc:
            errors.append(
                {
                    "source": s,
                    "schema": mi,
                    "op": "createTwoWay",
                    "original": j("Original"),
                    "modified": j("Modified"),
                    "contains": tc["ExpectedTwoWayErr"],
                    "skip": UNKNOWN_SKIP,
                }
            )
        else:
            two.append(
                {
                    "source": s,
                    "schema": mi,
                    "original": j("Original"),
                    "modified": j("Modified"),
                    "twoWay": j("ExpectedTwoWay"),
                    "result": j("ExpectedTwoWayResult"),
                }
            )
        if "ExpectedThreeWayErr" in tc:
            errors.append(
                {
                    "source": s,
                    "schema": mi,
                    "op": "createThreeWay",
                    "original": j("Original"),
                    "modified": j("Modified"),
                    "current": j("Current"),
                    "contains": tc["ExpectedThreeWayErr"],
                    "skip": UNKNOWN_SKIP,
                }
            )
        else:
            three.append(
                {
                    "source": s,
                    "schema": mi,
                    "conflict": False,
                    "original": j("Original"),
                    "modified": j("Modified"),
                    "current": j("Current"),
                    "threeWay": j("ExpectedThreeWay"),
                    "result": j("ExpectedThreeWayResult"),
                }
            )

    # TestNumberConversion: two-way only, schema precisionItem.
    for name, tc in sorted(map_cases(src, "TestNumberConversion").items()):
        two.append(
            {
                "source": src_of("TestNumberConversion", name),
                "schema": "precision-item.schema",
                "original": json.loads(tc["Old"]),
                "modified": json.loads(tc["New"]),
                "twoWay": json.loads(tc["ExpectedPatch"]),
                "result": json.loads(tc["ExpectedResult"]),
            }
        )

    # TestCustomStrategicMergePatch: application only.
    data = "TestCustomStrategicMergePatch customStrategicMergePatchTestCaseData"
    for c in yaml_var(src, "customStrategicMergePatchTestCaseData"):
        result = c.get("twoWayResult") if c.get("twoWayResult") is not None else c.get("modified")
        apply.append(
            absent_none(
                {
                    "source": src_of(data, c["description"]),
                    "schema": mi,
                    "original": srt(c.get("original")),
                    "patch": srt(c.get("twoWay")),
                    "result": srt(result),
                }
            )
        )
    var = "customStrategicMergePatchRawTestCases"
    for c in raw_cases(src, var):
        s = src_of(f"TestCustomStrategicMergePatch {var}", c["description"])
        if "ExpectedError" in c:
            errors.append(
                absent_none(
                    {
                        "source": s,
                        "schema": mi,
                        "op": "apply",
                        "original": c.get("Original"),
                        "patch": c.get("TwoWay"),
                        "contains": c["ExpectedError"],
                    }
                )
            )
        else:
            result = c.get("TwoWayResult") if "TwoWayResult" in c else c.get("Modified")
            apply.append(
                absent_none(
                    {
                        "source": s,
                        "schema": mi,
                        "original": c.get("Original"),
                        "patch": c.get("TwoWay"),
                        "result": result,
                    }
                )
            )

    # TestStrategicMergePatch's argument checks (the documents are not JSON).
    for desc, orig, patch in [
        ("bad original", "<THIS IS NOT JSON>", "{}"),
        ("bad patch", "{}", "<THIS IS NOT JSON>"),
    ]:
        errors.append(
            {
                "source": src_of("TestStrategicMergePatch", desc),
                "schema": mi,
                "op": "applyText",
                "original": orig,
                "patch": patch,
                "equals": "invalid JSON document",
            }
        )
    for desc, why in [
        ("bad struct", "Go API only: NewPatchMetaFromStruct given a non-struct"),
        ("nil struct", "Go API only: a nil LookupPatchMeta"),
    ]:
        errors.append(
            {
                "source": src_of("TestStrategicMergePatch", desc),
                "schema": mi,
                "op": "apply",
                "skip": why,
            }
        )

    def write(name, cases):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump({"source": SRC, "cases": cases}, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{name}: {len(cases)} cases")

    # pkg/util/jsonmergepatch: CreateThreeWayJSONMergePatch (what kubectl apply sends for kinds
    # it has no Go type for: custom resources), and its null filter.
    jsrc = go_source(gitdir, JFILE)
    json_three = []
    for c in yaml_var(jsrc, "createJSONMergePatchTestCaseData"):
        json_three.append(
            absent_none(
                {
                    "source": f"{JSRC} TestCreateThreeWayJSONMergePatch createJSONMergePatchTestCaseData: {c['description']}",
                    "original": c.get("original"),
                    "modified": c.get("modified"),
                    "current": c.get("current"),
                    "threeWay": c.get("threeWay"),
                    "result": c.get("result"),
                }
            )
        )
    json_filter = []
    for c in yaml_var(jsrc, "filterNullTestCaseData"):
        for k in ["originalObj", "expectedWithNull", "expectedWithoutNull"]:
            assert isinstance(c.get(k), dict), (c["description"], k)
        json_filter.append(
            {
                "source": f"{JSRC} TestKeepOrDeleteNullInObj filterNullTestCaseData: {c['description']}",
                "originalObj": c["originalObj"],
                "expectedWithNull": c["expectedWithNull"],
                "expectedWithoutNull": c["expectedWithoutNull"],
            }
        )

    def jwrite(name, cases):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump({"source": JSRC, "cases": cases}, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{name}: {len(cases)} cases")

    jwrite("json-merge-three-way.json", json_three)
    jwrite("json-merge-filter-null.json", json_filter)
    write("sort.json", sort_cases)
    write("two-way.json", two)
    write("three-way.json", three)
    write("apply.json", apply)
    write("errors.json", errors)


if __name__ == "__main__":
    main()
