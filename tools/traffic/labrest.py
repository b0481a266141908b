"""The mcast4ai REST API from the lab's Python tools: HTTP BASIC, JSON in and out (the Java tools use the client)."""

import base64
import json
import time
import urllib.error
import urllib.request


class Rest:
    def __init__(self, base, user="onos", password="rocks"):
        self.base = base.rstrip("/") + "/"
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()

    def request(self, method, path, body=None):
        """(HTTP status, the JSON answer or {}), whatever the status."""
        req = urllib.request.Request(self.base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": self.auth, "Content-Type": "application/json",
                                              "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=15) as r:
                text = r.read().decode()
                return r.status, (json.loads(text) if text else {})
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            try:
                return e.code, json.loads(text) if text else {}
            except ValueError:
                return e.code, {"message": text[:300]}

    def call(self, method, path, body=None):
        """The JSON answer; RuntimeError with the status and the API's message for a refusal."""
        status, answer = self.request(method, path, body)
        if status >= 400:
            raise RuntimeError("%s %s: HTTP %d %s" % (method, path, status, answer.get("message", "")))
        return answer

    def purge(self, gid, timeout=20):
        """Withdraws a group and removes its record (the purge repeated while the withdrawal is in progress)."""
        self.request("DELETE", "groups/%d" % gid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, _ = self.request("DELETE", "groups/%d?purge=true" % gid)
            if status in (204, 404):
                return
            time.sleep(0.05)
        raise RuntimeError("group %d not purged in %d s" % (gid, timeout))
