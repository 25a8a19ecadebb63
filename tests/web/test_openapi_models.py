"""/api/openapi.json documents the real shapes of the view models (web/openapi_models.py): on a demo
workspace, asked as the local admin and with a viewer's token, every documented
property is in some real response and no response holds a key the schema does not document; a money
field a role may not see is documented as decimal text or "restricted"; every page takes ?lang= and
?format=json.
"""

from __future__ import annotations

import pytest

from trainledger.web import openapi_models as om

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]


@pytest.fixture(scope="module")
def answers(demo_pristine, tmp_path_factory):
    import shutil

    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    root = tmp_path_factory.mktemp("openapi") / "demo"
    shutil.copytree(demo_pristine, root)  # the tokens are written to a copy
    with TestClient(create_app(root)) as c:
        return om.samples(c, om.role_headers(root)), c.get("/api/openapi.json").json()


@pytest.mark.parametrize("model", om.MODELS)
def test_every_documented_property_is_answered_and_every_answered_key_documented(answers, model):
    found, doc = answers
    schema = doc["components"]["schemas"][model]
    assert found[model], model
    undocumented, unseen = om.conformance(schema, found[model])
    assert not undocumented, f"{model}: keys no schema documents (run python -m trainledger.web.openapi_models" \
                             f" --update and review the diff): {undocumented[:20]}"
    assert not unseen, f"{model}: documented but in no response: {unseen[:20]}"
    assert schema["description"]  # from the view model's builder (web/views.py)


def test_the_document_is_the_stored_inference_of_the_same_answers(answers):
    found, doc = answers
    stored = om.load()
    for model in om.MODELS:  # the stored shapes are what the answers give now (not edited by hand)
        again = om.infer(found[model])
        assert {k: v for k, v in doc["components"]["schemas"][model].items() if k != "description"} == stored[model]
        assert again == stored[model], model


def _at(schema: dict, path: str) -> dict:
    for part in path.split("."):
        schema = schema["items"] if part == "[]" else schema["properties"][part]
    return schema


def test_a_restricted_money_field_says_so_and_nested_shapes_are_given(answers):
    _, doc = answers
    s = doc["components"]["schemas"]
    money = _at(s["Line"], "expected")
    assert {"type": "string", "enum": ["restricted"]} in money["anyOf"] and "restricted" in money["description"]
    assert _at(s["Line"], "provenance.row") == {"type": "integer"}
    assert _at(s["Batches"], "batches.[].totals_by_basis.[].basis") == {"type": "string"}
    runs = _at(s["Batch"], "sheet.runs.[]")
    assert {"id", "state", "gpu_hours_by_state"} <= set(runs["properties"])
    assert runs["properties"]["gpu_hours_by_state"]["additionalProperties"] == {"type": "string", "format": "decimal"}
    assert "access" in s["Batch"]["properties"]  # what a restricted role's answer adds
    assert {"batches", "report", "conservation"} <= set(s["Report"]["required"])
    assert _at(s["Source"], "values")["additionalProperties"]  # a source row's columns: a map


def test_every_page_documents_lang_format_and_accept(answers):
    _, doc = answers
    for path, item in doc["paths"].items():
        op = item.get("get")
        if op is None or "sheet." in path or path.endswith((".csv", "/api/csrf")):
            continue
        names = {(p["in"], p["name"]) for p in op["parameters"]}
        assert {("query", "lang"), ("query", "format"), ("header", "Accept")} <= names, path
        assert "409" in op["responses"], path
