# Schemathesis hooks (loaded through the run's schemathesis.toml, "hooks"): the upload follow-ups
# take a sealed value (a multipart upload's `uploadId`, a PUT upload's `receipt`) that no generator
# can forge, so every generated request to them would only meet the 403 of a forged token. Here,
# just before each request to one of them is sent (in every phase), its body gets the origin, key
# and sealed value of a real upload, from those openapi.test.ts made before the run
# (WAYBILL_FUZZ_UPLOADS, a JSON file), taken in turn so that a seed replays the same requests;
# everything else in the body stays as generated, but for a check's ETag of an object that was
# sent (a generated one could only ever be refused as not the stored object's). So the requests reach the services behind each
# follow-up, and the answers the store's state decides (a part list, an ETag that is not the
# stored object's, an upload already aborted) are checked against the document like any other.

import json
import os
from itertools import cycle

import schemathesis

with open(os.environ["WAYBILL_FUZZ_UPLOADS"], encoding="utf-8") as file:
    UPLOADS = json.load(file)

# Operation path: the uploads its sealed value comes from, and the field that holds it. Aborting
# has uploads of its own, so that the others' stay open.
FOLLOW_UPS = {
    "/v1/uploads/multipart/parts": (cycle(UPLOADS["multipart"]), "uploadId"),
    "/v1/uploads/multipart/list": (cycle(UPLOADS["multipart"]), "uploadId"),
    "/v1/uploads/multipart/complete": (cycle(UPLOADS["multipart"]), "uploadId"),
    "/v1/uploads/multipart/abort": (cycle(UPLOADS["abortable"]), "uploadId"),
    "/v1/uploads/complete": (cycle(UPLOADS["put"]), "receipt"),
}


# The R2 origin's routes: a URL it signed, by the method it is signed for (HEAD is a GET's).
SERVED = {method: cycle(urls) for method, urls in UPLOADS["served"].items() if urls}
SIGNED_FOR = {"GET": "GET", "HEAD": "GET", "PUT": "PUT", "DELETE": "DELETE"}


def sign_served(case):
    urls = SERVED.get(SIGNED_FOR.get(case.method.upper(), ""))
    if urls is None:
        return
    url = next(urls)
    case.path_parameters = {**(case.path_parameters or {}), "origin": url["origin"], "key": url["key"]}
    case.query = {**url["query"]}


# The admin run's grants to remove (openapi.test.ts makes them): a valid DELETE of a grant takes
# their ids in turn, so that some reach a grant that is there; the rest meet its 404 as before.
# Not in the stateful phase, where the delete follows the grant its linked POST made (and a
# check expects that one to be there).
GRANTS = cycle(UPLOADS.get("grants") or [None])


def is_negative(case):
    meta = getattr(case, "_meta", None)
    return meta is not None and meta.generation.mode.is_negative


def is_stateful(case):
    meta = getattr(case, "_meta", None)
    return meta is not None and meta.phase.name == "stateful"


@schemathesis.hook
def before_call(context, case, kwargs):
    # A negative case stays as generated: its invalid part is the point of it.
    if case.operation.path == "/o/{origin}/{key}":
        return None if is_negative(case) else sign_served(case)
    if case.operation.path == "/admin/v1/grants/{id}" and case.method.upper() == "DELETE":
        if not is_negative(case) and not is_stateful(case):
            grant = next(GRANTS)
            if grant is not None:
                case.path_parameters = {**(case.path_parameters or {}), "id": grant}
        return None
    follow_up = FOLLOW_UPS.get(case.operation.path)
    # A body that is not an object is a negative case about its shape: it goes as generated.
    if follow_up is None or not isinstance(case.body, dict):
        return
    uploads, field = follow_up
    upload = next(uploads)
    body = {**case.body, "origin": upload["origin"], "key": upload["key"], field: upload[field]}
    # A check's ETag is the one the store answered the upload with, as a caller's would be.
    if "etag" in body and upload.get("etag") is not None:
        body["etag"] = upload["etag"]
    case.body = body

