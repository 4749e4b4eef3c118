"""The official MCP Python SDK's verdict on the header mirroring cases of tests/headers_python.rs.

Reads {"versions", "cases", "encode", "decode", "schemas", "seed", "random"} as JSON from the
file named by argv[1] and prints one JSON object: the SDK's outcome for every case (those given,
then `random` integer parameters and `random` requests with slips in their headers, made here
from `seed`), its encode_header_value / decode_header_value on the values given, then on
`random` more each, and its reading of each tool schema (those given as [schema text,
[arguments text...]], then `random` more): find_invalid_x_mcp_header, and for a valid one
x_mcp_header_map and the mcp_param_headers of each arguments object.

A case is a POST: a body (text), its header lines ([name, value] with the value's bytes as
Latin-1 text) and, for tools/call, the tool's inputSchema. It goes through the SDK server's
own steps: h11 (uvicorn's default HTTP/1.1 parser) parses the request, so values are trimmed
and refused as the server would see them; then, on the parsed headers, what
mcp.server._streamable_http_modern.handle_modern_request does after reading the body, in its
order: the notification arm, the request envelope, find_duplicated_routing_header,
classify_inbound_request, and validate_mcp_param_headers under the preconditions of
_mcp_param_rejection.
"""

import base64
import json
import random
import sys
from collections.abc import Mapping
from importlib.metadata import version

import h11
from mcp.shared.inbound import (
    MCP_PARAM_HEADER_PREFIX,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    classify_inbound_request,
    decode_header_value,
    encode_header_value,
    find_duplicated_routing_header,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    unsupported_protocol_version_rejection,
    validate_mcp_param_headers,
    x_mcp_header_map,
)
from mcp_types import JSONRPCNotification, JSONRPCRequest
from mcp_types.jsonrpc import HEADER_MISMATCH, INVALID_REQUEST
from pydantic import ValidationError
from starlette.datastructures import Headers

# The steps below copy handle_modern_request's order at this version.
assert version("mcp") == "2.3.0", version("mcp")


def parse(body: bytes, lines: list[list[str]]):
    """The headers as the SDK's server reads them, or None when h11 refuses the request."""
    raw = b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
    raw += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    for name, value in lines:
        raw += name.encode("latin-1") + b": " + value.encode("latin-1") + b"\r\n"
    raw += b"\r\n" + body
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(raw)
    try:
        event = conn.next_event()
    except h11.RemoteProtocolError:
        return None
    assert isinstance(event, h11.Request), event
    return Headers(raw=list(event.headers))


def rejection(r: InboundLadderRejection) -> dict:
    return {"status": 400, "code": r.code, "data": r.data}


def outcome(case: dict, versions: list[str]) -> dict:
    """The SDK server's answer: its status, and its JSON-RPC error code and data if any; an
    exception the server would not catch is a 500."""
    try:
        return ladder(case, versions)
    except Exception as e:  # noqa: BLE001
        return {"status": 500, "code": None, "data": f"{type(e).__name__}: {e}"}


def ladder(case: dict, versions: list[str]) -> dict:
    body = case["body"].encode("utf-8")
    headers = parse(body, case["headers"])
    if headers is None:
        return {"status": 400, "code": None, "data": None}
    decoded = json.loads(body)
    if isinstance(decoded, dict) and "id" not in decoded:
        # _acknowledge_notification
        try:
            JSONRPCNotification.model_validate(decoded)
        except ValidationError:
            return {"status": 400, "code": INVALID_REQUEST, "data": None}
        requested = headers.get(MCP_PROTOCOL_VERSION_HEADER, "")
        if (r := unsupported_protocol_version_rejection(requested, versions)) is not None:
            return rejection(r)
        return {"status": 202, "code": None, "data": None}
    try:
        req = JSONRPCRequest.model_validate(decoded)
    except ValidationError:
        return {"status": 400, "code": INVALID_REQUEST, "data": None}
    if (duplicated := find_duplicated_routing_header(headers.items())) is not None:
        return {"status": 400, "code": HEADER_MISMATCH, "data": duplicated}
    verdict = classify_inbound_request(decoded, headers=dict(headers), supported_modern_versions=versions)
    if isinstance(verdict, InboundLadderRejection):
        return rejection(verdict)
    # _mcp_param_rejection, with the schema get_tool_input_schema would return.
    params = req.params or {}
    schema = case.get("schema")
    arguments = params.get("arguments")
    if (
        req.method == "tools/call"
        and schema is not None
        and isinstance(params.get("name"), str)
        and (arguments is None or isinstance(arguments, Mapping))
    ):
        arguments = arguments or {}
        prefix = MCP_PARAM_HEADER_PREFIX.lower()
        if arguments or any(name.startswith(prefix) for name in headers):
            if (r := validate_mcp_param_headers(schema, arguments, headers)) is not None:
                return rejection(r)
    return {"status": 200, "code": None, "data": None}


# Random cases: the value codec, and integer parameters.

SENTINEL = ("=?base64?", "?=")


def random_text(rng: random.Random) -> str:
    pool = ["a", "Z", "0", " ", "\t", "\n", "\x7f", "\x00", "é", "世", "😀", "=", "?", "/", "+", "=?base64?", "?="]
    return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 8)))


def random_header_value(rng: random.Random) -> str:
    """A value h11 passes unchanged (visible ASCII, inner spaces), mostly in the sentinel form."""
    payload = base64.b64encode(random_text(rng).encode("utf-8")).decode("ascii")
    if payload and rng.random() < 0.6:
        i = rng.randrange(len(payload) + 1)
        mutation = rng.choice(["drop", "insert", "replace", "strip"])
        if mutation == "strip":
            payload = payload.rstrip("=")
        elif mutation == "drop" and i < len(payload):
            payload = payload[:i] + payload[i + 1 :]
        else:
            c = rng.choice("AQgw/+=?= -_*")
            j = i + (mutation == "replace")
            payload = payload[:i] + c + payload[j:]
    value = payload if rng.random() < 0.15 else SENTINEL[0] + payload + SENTINEL[1]
    return value.strip(" ")


def random_integer_case(rng: random.Random, n: int) -> dict:
    value = rng.choice([0, 7, -7, 42, 2**53 - 1, -(2**53) + 1, rng.randrange(-(10**6), 10**6)])
    body_value = rng.choice([str(value), f"{value}.0", f"{value}.00", f"{value}e0" if value else "0e5"])
    text = str(value)
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    header = rng.choice(
        [
            text,
            f"{text}.0",
            f"{text}.000",
            f"{text}.5",
            f"{sign}0{digits}",
            f"{sign}00{digits}",
            f"+{text}" if not sign else text,
            f"{text}.",
            f".{digits}",
            f"{text}e0",
            str(value + 1),
            f"{text} ",
            "-0" if value == 0 else text,
            f"=?base64?{base64.b64encode(text.encode()).decode()}?=",
        ]
    )
    body = (
        '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{"n":%s},'
        '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientCapabilities":{}}}}' % (n, body_value)
    )
    return {
        "name": f"random integer {n}",
        "body": body,
        "headers": [
            ["MCP-Protocol-Version", "2026-07-28"],
            ["Mcp-Method", "tools/call"],
            ["Mcp-Name", "t"],
            ["Mcp-Param-N", header],
        ],
        "schema": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
    }


def random_request_case(rng: random.Random, n: int) -> dict:
    """A request with the headers a client sends for it, then up to two slips: a header
    dropped, repeated, renamed in another case, given another value or whitespace around it."""
    method = rng.choice(["tools/call", "prompts/get", "resources/read", "tools/list"])
    version = rng.choice(["2026-07-28"] * 4 + ["2099-01-01"])
    name = random_text(rng) or "x"
    params: dict = {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    }
    member = {"resources/read": "uri", "tools/list": None}.get(method, "name")
    if member:
        params[member] = name
    headers = [["MCP-Protocol-Version", version], ["Mcp-Method", method]]
    if member:
        headers.append(["Mcp-Name", encode_header_value(name)])
    others = ["tools/call", "2026-07-28", "2099-01-01", "x", encode_header_value(random_text(rng))]
    for _ in range(rng.randrange(3)):
        i = rng.randrange(len(headers))
        slip = rng.choice(["drop", "repeat", "case", "value", "space", "name"])
        if slip == "drop":
            del headers[i]
        elif slip == "repeat":
            headers.append([headers[i][0], rng.choice([headers[i][1], rng.choice(others)])])
        elif slip == "case":
            headers[i][0] = rng.choice([headers[i][0].lower(), headers[i][0].upper()])
        elif slip == "value":
            headers[i][1] = rng.choice(others)
        elif slip == "space":
            headers[i][1] = rng.choice([" ", "\t"]) + headers[i][1] + rng.choice(["", " "])
        else:
            headers.append(["Mcp-Name", encode_header_value(name)])
        if not headers:
            break
    return {
        "name": f"random request {n}",
        "body": json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}),
        "headers": headers,
        "schema": None,
    }


# Random tool schemas, and arguments for them.

TOKENS = ["Region", "region", "REGION", "Limit", "Dry", "a-b", "x_1", "~!#$%&'*+.^`|"]
BAD_TOKENS = ["", "a b", "a:b", "é", "a\n", 5, None, ["Region"]]
TYPES = ["string", "integer", "boolean"]
BAD_TYPES = ["number", "object", "array", "null", ["string", "null"], None]
APPLICATORS = ["items", "additionalProperties", "not", "if", "contentSchema"]
LISTS = ["anyOf", "allOf", "oneOf", "prefixItems"]
MAPS = ["$defs", "patternProperties", "definitions"]
DATA = ["default", "const", "examples", "enum"]
KEYS = ["region", "opts", "limit", "dry", "q", "é", "a b"]


def random_schema(rng: random.Random, depth: int, bad: float) -> dict:
    """A schema position: an object schema with properties, maybe others' subschemas, and
    annotations on some of its properties (invalid ones with probability `bad` each)."""
    schema: dict = {}
    if depth > 0 and rng.random() < 0.8:
        props = {}
        for key in rng.sample(KEYS, rng.randrange(1, 4)):
            props[key] = random_schema(rng, depth - 1, bad)
        schema["type"] = "object"
        schema["properties"] = props
    else:
        schema["type"] = rng.choice(BAD_TYPES) if rng.random() < bad else rng.choice(TYPES)
        if rng.random() < 0.5:
            schema["x-mcp-header"] = rng.choice(BAD_TOKENS) if rng.random() < bad else rng.choice(TOKENS)
        if schema["type"] is None:
            del schema["type"]
    if depth > 0 and rng.random() < bad:
        sub = {"type": "string", "x-mcp-header": rng.choice(TOKENS)}
        where = rng.choice(APPLICATORS + LISTS + MAPS + DATA)
        if where in LISTS or where in ("examples", "enum"):
            schema[where] = [sub]
        elif where in MAPS:
            schema[where] = {"k": sub}
        else:
            schema[where] = sub
    return schema


def random_arguments(rng: random.Random, schema: dict) -> dict:
    """Arguments for `schema`: values of the declared types mostly, others sometimes."""
    def value(sub):
        if not isinstance(sub, dict):
            return None
        if "properties" in sub and rng.random() < 0.9:
            return {k: value(v) for k, v in sub["properties"].items() if rng.random() < 0.8}
        return rng.choice(
            {
                "string": [random_text(rng), "us-west1", "=?base64?x?="],
                "integer": [0, -7, 42, 2**53 - 1, 10**20],
            }.get(str(sub.get("type")), [True, False])
            + [None, 1.5, "s", {"a": 1}, [1]]
        )
    args = value(schema)
    return args if isinstance(args, dict) else {}


def read_schema(text: str, arguments: list[str]) -> dict:
    schema = json.loads(text)
    invalid = find_invalid_x_mcp_header(schema)
    out = {"schema": text, "invalid": invalid}
    if invalid is None:
        header_map = x_mcp_header_map(schema)
        out["map"] = [[list(path), token] for path, token in header_map.items()]
        out["mirror"] = [[a, mcp_param_headers(header_map, json.loads(a))] for a in arguments]
    return out


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    versions = spec["versions"]
    rng = random.Random(spec["seed"])
    cases = spec["cases"] + [random_integer_case(rng, n) for n in range(spec["random"])]
    cases += [random_request_case(rng, n) for n in range(spec["random"])]
    texts = spec["encode"] + [random_text(rng) for _ in range(spec["random"])]
    values = spec["decode"] + [random_header_value(rng) for _ in range(spec["random"])]
    schemas = [tuple(s) for s in spec["schemas"]]
    for n in range(spec["random"]):
        schema = random_schema(rng, rng.randrange(1, 4), rng.choice([0.0, 0.0, 0.1, 0.3]))
        arguments = [json.dumps(random_arguments(rng, schema)) for _ in range(3)]
        schemas.append((json.dumps(schema), arguments))
    print(
        json.dumps(
            {
                "cases": [dict(case, sdk=outcome(case, versions)) for case in cases],
                "encode": [[t, encode_header_value(t)] for t in texts],
                "decode": [[v, decode_header_value(v)] for v in values],
                "schemas": [read_schema(text, arguments) for text, arguments in schemas],
            }
        )
    )


main()
