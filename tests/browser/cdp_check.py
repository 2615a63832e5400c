#!/usr/bin/python3
# cdp_check.py [--shots DIR] PAGE.html...: opens each page in headless Chromium
# through the DevTools protocol (--remote-debugging-pipe: JSON messages ended by
# NUL on fds 3 and 4, so only the standard library is needed) at 1400 px and at
# 800 px wide, and reports, one line each: console errors and uncaught
# exceptions, a page whose script did not finish (no data-ready), and text that
# overflows its box (an element holding text whose content is wider than it,
# or that reaches past the window, outside any box that scrolls; a chart's
# text that runs out of its SVG). With --shots
# it writes DIR/NAME-WIDTH.png, the page as the window shows it. With --eval JS
# it prints "eval: NAME at WIDTH px: VALUE", the value of the expression JS on
# each page (after the checks), for a test to compare with what it expects.
# Exit 0 when every page is clean, 1 with the problems, 77 without chromium.
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

WIDTHS = (1400, 800)

# The elements whose text does not fit: own text wider than the element
# (overflow visible), or reaching past the window; none inside a box that
# scrolls or clips (a table in an overflow-x:auto wrapper is fine).
OVERFLOW_JS = r"""
(function(){
 var out=[], vw=document.documentElement.clientWidth;
 function clipped(el){for(var a=el.parentElement;a&&a!==document.body;a=a.parentElement){
   var o=getComputedStyle(a).overflowX; if(o!=='visible') return true;} return false;}
 function ownText(el){for(var n=el.firstChild;n;n=n.nextSibling)
   if(n.nodeType===3&&n.textContent.trim()) return n.textContent.trim(); return '';}
 document.querySelectorAll('body *').forEach(function(el){
  if(el.closest('svg')) return;
  var t=ownText(el); if(!t) return;
  var cs=getComputedStyle(el); if(cs.display==='none'||cs.visibility==='hidden') return;
  var r=el.getBoundingClientRect(); if(!r.width) return;
  var wide=cs.display!=='inline'&&cs.overflowX==='visible'&&el.scrollWidth>el.clientWidth+1;
  var past=r.right>vw+1;
  if((wide||past)&&!clipped(el))
   out.push(el.tagName.toLowerCase()+(el.className?'.'+String(el.className).split(' ')[0]:'')+
     ' "'+t.slice(0,40)+'" '+(wide?'is '+el.scrollWidth+' px in a '+el.clientWidth+' px box':
     'reaches '+Math.round(r.right)+' px of '+vw));
 });
 document.querySelectorAll('svg text').forEach(function(el){
  var box=el.ownerSVGElement.getBoundingClientRect(), r=el.getBoundingClientRect();
  if(r.width&&(r.left<box.left-1||r.right>box.right+1))
   out.push('svg text "'+el.textContent.trim().slice(0,40)+'" runs out of its chart ('+
     Math.round(r.left-box.left)+' .. '+Math.round(r.right-box.left)+' px of '+Math.round(box.width)+')');
 });
 return out.slice(0,10);
})()
"""


class Browser:
    def __init__(self, exe):
        self.prof = tempfile.mkdtemp(prefix="perfhunt-cdp.")
        r1, self.w = os.pipe()   # our commands -> chromium's fd 3
        self.r, w2 = os.pipe()   # chromium's fd 4 -> us
        # above 4, so that placing one on 3 or 4 cannot overwrite the other
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (r1, w2)]
        os.close(r1)
        os.close(w2)
        r1, w2 = hi
        def fds():
            os.dup2(r1, 3)
            os.dup2(w2, 4)
        self.p = subprocess.Popen([exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                                   "--disable-background-networking", "--disable-component-update",
                                   "--disable-sync", "--no-first-run", "--disable-extensions", "--hide-scrollbars",
                                   "--user-data-dir=" + self.prof, "about:blank"],
                                  preexec_fn=fds, pass_fds=(3, 4, r1, w2), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.buf, self.next_id, self.events = b"", 0, []

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self.read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)
        raise RuntimeError(method + ": no answer")

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, OSError):
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        shutil.rmtree(self.prof, ignore_errors=True)


def errors_of(events, session):
    out = []
    for e in events:
        if e.get("sessionId") != session:
            continue
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("uncaught: " + (d.get("exception", {}).get("description") or d.get("text", "")).split("\n")[0])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", "")))
                                                                for a in p.get("args", []))))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
    return out


def check_page(b, page, width, shots, expr=None):
    t = b.send("Target.createTarget", {"url": "about:blank"})
    s = b.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
    for dom in ("Runtime.enable", "Log.enable", "Page.enable"):
        b.send(dom, session=s)
    b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1,
                                                  "mobile": False}, session=s)
    b.events.clear()
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=s)
    ready, end = False, time.monotonic() + 60
    while not ready and time.monotonic() < end:
        r = b.send("Runtime.evaluate", {"expression": "document.readyState==='complete'&&"
                                        "document.documentElement.getAttribute('data-ready')", "returnByValue": True},
                   session=s)
        ready = r.get("result", {}).get("value") == "1"
        if not ready:
            time.sleep(0.05)
    problems = [] if ready else ["the page's script did not finish (no data-ready)"]
    err = b.send("Runtime.evaluate", {"expression": "document.documentElement.getAttribute('data-error')",
                                      "returnByValue": True}, session=s)["result"].get("value")
    if err:
        problems.append("script error: " + err)
    over = b.send("Runtime.evaluate", {"expression": OVERFLOW_JS, "returnByValue": True}, session=s)
    problems += ["text overflows: " + o for o in over["result"].get("value") or []]
    problems += errors_of(b.events, s)
    if expr:
        v = b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=s)
        print("eval: %s at %d px: %s" % (os.path.basename(page), width,
                                          v.get("result", {}).get("value", v.get("exceptionDetails", {}).get("text"))))
    if shots:
        png = b.send("Page.captureScreenshot", {"format": "png"}, session=s)["data"]
        name = os.path.splitext(os.path.basename(page))[0]
        with open(os.path.join(shots, "%s-%d.png" % (name, width)), "wb") as f:
            f.write(base64.b64decode(png))
    b.send("Target.closeTarget", {"targetId": t["targetId"]})
    return problems


def main():
    args, shots, expr = sys.argv[1:], None, None
    while args[:1] in (["--shots"], ["--eval"]):
        if args[0] == "--shots":
            shots = args[1]
        else:
            expr = args[1]
        args = args[2:]
    exe = shutil.which("chromium")
    if not exe:
        print("skipped: chromium not installed")
        return 77
    if not args:
        print("usage: cdp_check.py [--shots DIR] [--eval JS] PAGE.html...", file=sys.stderr)
        return 2
    b = Browser(exe)
    bad = 0
    try:
        for page in args:
            for width in WIDTHS:
                problems = check_page(b, page, width, shots, expr)
                for p in problems:
                    print("problem: %s at %d px: %s" % (os.path.basename(page), width, p))
                if not problems:
                    print("clean: %s at %d px" % (os.path.basename(page), width))
                bad += len(problems)
    finally:
        b.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
