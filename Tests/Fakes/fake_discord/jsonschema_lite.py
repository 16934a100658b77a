"""A small JSON-schema validator for the subset of JSON Schema 2020-12 that
Discord's OpenAPI 3.1 spec (discord/discord-api-spec) uses for request bodies.

Test-tree code for the fake Discord server. Standard library only.

Supported keywords: $ref (into #/components/schemas, siblings applied too),
type (string or list, incl. "null"), const, enum, properties, required,
additionalProperties (bool or schema), minProperties/maxProperties, items,
minItems/maxItems, uniqueItems, minLength/maxLength, pattern, minimum/maximum,
allOf, anyOf, oneOf, format (int32, int64, snowflake, uri, date-time).
Ignored (annotation only): title, description, contentEncoding, x-*.

Errors are collected as (path, code, message) tuples and can be rendered into
Discord's nested 50035 "Invalid Form Body" `errors` shape with `error_tree`.

Deliberate interpretations where the docs and the generated spec disagree
(the spec README says the docs win; listed in README.md):
- a schema with `format: "snowflake"` also accepts a non-negative JSON
  integer: the docs show integer ids in request bodies (attachment `{"id": 0}`
  in multipart uploads).
- properties listed in DOC_STRING_INTEGERS accept a decimal string where the
  spec says integer: the docs type `default_member_permissions` as `?string`.
"""

import datetime
import json
import re

INT32 = (-(2 ** 31), 2 ** 31 - 1)
INT64 = (-(2 ** 63), 2 ** 63 - 1)
URI_SCHEMES = ("http", "https", "discord", "attachment")
DOC_STRING_INTEGERS = frozenset({"default_member_permissions"})


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_equal(a, b):
    """Strict JSON equality (true != 1, 1 == 1.0)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_num(a) and _is_num(b):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return False


def _type_ok(inst, t, form=False):
    if t == "null":
        return inst is None
    if t == "boolean":
        if form and isinstance(inst, str):
            return inst in ("true", "false", "True", "False", "1", "0")
        return isinstance(inst, bool)
    if t == "integer":
        if form and isinstance(inst, str):
            return re.fullmatch(r"-?\d+", inst) is not None
        return _is_int(inst) or (isinstance(inst, float) and inst.is_integer())
    if t == "number":
        if form and isinstance(inst, str):
            try:
                float(inst)
                return True
            except ValueError:
                return False
        return _is_num(inst)
    if t == "string":
        return isinstance(inst, str)
    if t == "array":
        return isinstance(inst, list)
    if t == "object":
        return isinstance(inst, dict)
    return True


def _type_error(inst, types):
    shown = json.dumps(inst)[:60] if not isinstance(inst, str) else inst[:60]
    if "object" in types:
        return ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
    if "array" in types:
        return ("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")
    if "integer" in types:
        return ("NUMBER_TYPE_COERCE", 'Value "%s" is not int.' % shown)
    if "number" in types:
        return ("NUMBER_TYPE_COERCE", 'Value "%s" is not a number.' % shown)
    if "boolean" in types:
        return ("BASE_TYPE_BOOLEAN", "Must be either true or false.")
    if "string" in types:
        return ("BASE_TYPE_STRING", "Must be a string.")
    if types == ["null"]:
        return ("BASE_TYPE_NULL", "Must be null.")
    return ("BASE_TYPE_INVALID", "Invalid type.")


def _length_error(n, lo, hi):
    if lo is not None and hi is not None and (n < lo or n > hi):
        if n > hi and lo == 0:
            return ("BASE_TYPE_MAX_LENGTH", "Must be %d or fewer in length." % hi)
        return ("BASE_TYPE_BAD_LENGTH", "Must be between %d and %d in length." % (lo, hi))
    if hi is not None and n > hi:
        return ("BASE_TYPE_MAX_LENGTH", "Must be %d or fewer in length." % hi)
    if lo is not None and n < lo:
        return ("BASE_TYPE_MIN_LENGTH", "Must be %d or more in length." % lo)
    return None


def _choices_error(values):
    return ("BASE_TYPE_CHOICES",
            "Value must be one of {%s}." % ", ".join(json.dumps(v) for v in values))


class SchemaValidator:
    def __init__(self, spec):
        self.spec = spec
        self._ops = {}
        for path, item in spec.get("paths", {}).items():
            for method, op in item.items():
                if isinstance(op, dict) and "operationId" in op:
                    self._ops[op["operationId"]] = (method.upper(), path, op)
        self._re_cache = {}

    # ---- lookup -------------------------------------------------------
    def operation(self, operation_id):
        return self._ops.get(operation_id)

    def request_schema(self, operation_id, content_type="application/json"):
        op = self._ops.get(operation_id)
        if not op:
            return None
        body = op[2].get("requestBody")
        if not body:
            return None
        content = body.get("content", {})
        sch = content.get(content_type) or content.get("application/json")
        return None if sch is None else sch.get("schema")

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise ValueError("only local refs supported: %r" % ref)
        node = self.spec
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[part]
        return node

    # ---- validation ---------------------------------------------------
    def validate(self, instance, schema, form=False):
        """Return a list of (path_tuple, code, message)."""
        errs = []
        self._v(instance, schema, (), errs, form)
        return errs

    def _regex(self, pat):
        r = self._re_cache.get(pat)
        if r is None:
            r = self._re_cache[pat] = re.compile(pat)
        return r

    def _v(self, inst, sch, path, errs, form):
        if sch is True or sch is None:
            return
        if sch is False:
            errs.append((path, "BASE_TYPE_INVALID", "No value allowed here."))
            return
        if "$ref" in sch:
            self._v(inst, self.resolve(sch["$ref"]), path, errs, form)
            if len(sch) == 1:
                return
        fmt = sch.get("format")
        types = sch.get("type")
        if types is not None:
            tl = types if isinstance(types, list) else [types]
            if fmt == "snowflake" and _is_int(inst) and 0 <= inst < 2 ** 64:
                return  # integer snowflakes are accepted (see module doc)
            if "integer" in tl and isinstance(inst, str) and path and path[-1] in DOC_STRING_INTEGERS \
                    and re.fullmatch(r"\d{1,20}", inst):
                return  # documented as a string (see module doc)
            if not any(_type_ok(inst, t, form) for t in tl):
                code, msg = _type_error(inst, tl)
                errs.append((path, code, msg))
                return
        n_before = len(errs)
        if "const" in sch and not json_equal(inst, sch["const"]):
            errs.append((path,) + _choices_error([sch["const"]]))
        if "enum" in sch and not any(json_equal(inst, e) for e in sch["enum"]):
            errs.append((path,) + _choices_error(sch["enum"]))

        if isinstance(inst, str):
            lo, hi = sch.get("minLength"), sch.get("maxLength")
            if lo is not None or hi is not None:
                e = _length_error(len(inst), lo, hi)
                if e:
                    errs.append((path,) + e)
            if "pattern" in sch and not self._regex(sch["pattern"]).search(inst):
                if fmt == "snowflake":
                    errs.append((path, "NUMBER_TYPE_COERCE", 'Value "%s" is not snowflake.' % inst[:60]))
                else:
                    errs.append((path, "STRING_TYPE_REGEX",
                                 'String value did not match validation regex.'))
            if fmt == "uri":
                m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):", inst)
                if not m:
                    errs.append((path, "URL_TYPE_INVALID_URL", "Not a well formed URL."))
                elif m.group(1).lower() not in URI_SCHEMES:
                    errs.append((path, "URL_TYPE_INVALID_SCHEME",
                                 'Scheme "%s" is not supported. Scheme must be one of (%s).'
                                 % (m.group(1), ", ".join("'%s'" % s for s in URI_SCHEMES[:3]))))
            elif fmt == "date-time":
                try:
                    datetime.datetime.fromisoformat(inst.replace("Z", "+00:00"))
                except ValueError:
                    errs.append((path, "DATE_TIME_TYPE_PARSE",
                                 'Could not parse %s. Should be ISO8601.' % inst[:60]))
        if _is_num(inst) or (form and isinstance(inst, str) and re.fullmatch(r"-?\d+(\.\d+)?", inst or "")):
            num = inst if _is_num(inst) else float(inst)
            if "minimum" in sch and num < sch["minimum"]:
                errs.append((path, "NUMBER_TYPE_MIN",
                             "int value should be greater than or equal to %s." % sch["minimum"]))
            if "maximum" in sch and num > sch["maximum"]:
                errs.append((path, "NUMBER_TYPE_MAX",
                             "int value should be less than or equal to %s." % sch["maximum"]))
            rng = INT32 if fmt == "int32" else INT64 if fmt == "int64" else None
            if rng and _is_int(num) and not (rng[0] <= num <= rng[1]):
                errs.append((path, "NUMBER_TYPE_MAX", "int value is out of range for %s." % fmt))
        if isinstance(inst, list):
            lo, hi = sch.get("minItems"), sch.get("maxItems")
            if lo is not None or hi is not None:
                e = _length_error(len(inst), lo, hi)
                if e:
                    errs.append((path,) + e)
            if sch.get("uniqueItems"):
                seen = set()
                for x in inst:
                    k = json.dumps(x, sort_keys=True)
                    if k in seen:
                        errs.append((path, "BASE_TYPE_UNIQUE", "Must not contain duplicate items."))
                        break
                    seen.add(k)
            if "items" in sch and isinstance(sch["items"], (dict, bool)):
                for i, x in enumerate(inst):
                    self._v(x, sch["items"], path + (i,), errs, form)
        if isinstance(inst, dict):
            props = sch.get("properties", {})
            for name in sch.get("required", []):
                if name not in inst:
                    errs.append((path + (name,), "BASE_TYPE_REQUIRED", "This field is required"))
            for k, v in inst.items():
                if k in props:
                    self._v(v, props[k], path + (k,), errs, form)
                elif "additionalProperties" in sch:
                    ap = sch["additionalProperties"]
                    if ap is False:
                        errs.append((path + (k,), "BASE_TYPE_INVALID", "Unknown field."))
                    elif isinstance(ap, dict):
                        self._v(v, ap, path + (k,), errs, form)
            lo, hi = sch.get("minProperties"), sch.get("maxProperties")
            if lo is not None and len(inst) < lo:
                errs.append((path, "BASE_TYPE_MIN_LENGTH", "Must be %d or more in length." % lo))
            if hi is not None and len(inst) > hi:
                errs.append((path, "BASE_TYPE_MAX_LENGTH", "Must be %d or fewer in length." % hi))
        for sub in sch.get("allOf", []):
            self._v(inst, sub, path, errs, form)
        if "anyOf" in sch:
            self._union(inst, sch["anyOf"], path, errs, form, exclusive=False)
        if "oneOf" in sch:
            self._union(inst, sch["oneOf"], path, errs, form, exclusive=True)
        # const-only oneOf branches (enums modelled as oneOf of consts) give a
        # clearer single "choices" error; collapse duplicates at this path.
        if len(errs) - n_before > 1:
            seen = set()
            kept = errs[:n_before]
            for e in errs[n_before:]:
                if (e[0], e[1]) in seen and e[0] == path:
                    continue
                seen.add((e[0], e[1]))
                kept.append(e)
            errs[:] = kept

    def _discriminant(self, branch):
        """Return the allowed values of a branch's `type` property, if any."""
        b = branch
        while isinstance(b, dict) and "$ref" in b:
            b = self.resolve(b["$ref"])
        if not isinstance(b, dict):
            return None
        t = b.get("properties", {}).get("type")
        if not isinstance(t, dict):
            return None
        if "enum" in t:
            return t["enum"]
        if "const" in t:
            return [t["const"]]
        return None

    def _union(self, inst, branches, path, errs, form, exclusive):
        results = []
        for b in branches:
            be = []
            self._v(inst, b, path, be, form)
            results.append(be)
        ok = [i for i, be in enumerate(results) if not be]
        if ok and (not exclusive or len(ok) == 1):
            return
        if len(ok) > 1:
            errs.append((path, "UNION_TYPE_CHOICES", "Value matches more than one allowed type."))
            return
        # Pick the most relevant failing branch to report.
        if isinstance(inst, dict) and "type" in inst:
            for i, b in enumerate(branches):
                d = self._discriminant(b)
                if d is not None and any(json_equal(inst["type"], x) for x in d):
                    errs.extend(results[i])
                    return
            ds = [d for d in (self._discriminant(b) for b in branches) if d is not None]
            if ds:
                allowed = sorted({x for d in ds for x in d if _is_int(x)})
                errs.append((path + ("type",),) + _choices_error(allowed))
                return
        # const-only branches: report the choices
        consts = []
        for b in branches:
            bb = b
            while isinstance(bb, dict) and "$ref" in bb:
                bb = self.resolve(bb["$ref"])
            if isinstance(bb, dict) and "const" in bb:
                consts.append(bb["const"])
        if consts and len(consts) == len(branches):
            errs.append((path,) + _choices_error(consts))
            return
        # otherwise the branch whose errors are fewest and not a bare type error
        def score(be):
            type_err = any(p == path and c in ("MODEL_TYPE_CONVERT", "LIST_TYPE_CONVERT",
                                               "NUMBER_TYPE_COERCE", "BASE_TYPE_BOOLEAN",
                                               "BASE_TYPE_STRING", "BASE_TYPE_NULL")
                           for p, c, _ in be)
            return (type_err, len(be))
        best = min(range(len(results)), key=lambda i: score(results[i]))
        errs.extend(results[best])


def error_tree(errors):
    """Render (path, code, message) tuples into Discord's nested errors shape."""
    tree = {}
    for path, code, message in errors:
        node = tree
        for p in path:
            node = node.setdefault(str(p), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
    return tree
