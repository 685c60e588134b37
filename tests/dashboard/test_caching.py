"""Public pages are cacheable: ETag by table version, 304 without a render,
public caching for data, private for HTML (it carries a session's form token)."""


def test_public_data_is_cacheable_until_its_table_changes(app, live, match_events):
    c = app.test_client()
    r = c.get("/sheets/T01.json")
    assert r.status_code == 200 and r.headers["Cache-Control"].startswith("public, max-age=")
    tag = r.headers["ETag"]
    again = c.get("/sheets/T01.json", headers={"If-None-Match": tag})
    assert again.status_code == 304 and not again.data
    # another table's change leaves this sheet's tag alone; its own change renews it
    live.submit(dict(match_events[0], table="T02"))
    assert c.get("/sheets/T01.json", headers={"If-None-Match": tag}).status_code == 304
    live.submit(match_events[0])
    fresh = c.get("/sheets/T01.json", headers={"If-None-Match": tag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != tag
    # standings follow every table
    s = c.get("/standings.json")
    live.submit(dict(match_events[1], table="T02"))
    assert c.get("/standings.json", headers={"If-None-Match": s.headers["ETag"]}).status_code == 200


def test_public_html_is_cached_only_privately(app):
    c = app.test_client()
    # the first visits open the session (form token, login state): its cookie is in the tag
    tags = [c.get("/standings").headers["ETag"] for _ in range(4)]
    assert tags[-1] == tags[-2]
    r = c.get("/standings")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "private, no-cache"
    assert c.get("/standings", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    # referee pages are not touched
    assert "ETag" not in c.get("/login").headers
