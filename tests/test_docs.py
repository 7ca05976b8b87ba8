"""The documentation site: built from the committed notebooks into a temporary folder, served on 127.0.0.1 and opened
page by page in headless Chromium (Debian's package; installed with apt-get when missing): no console errors, every
image loads, math is typeset (no raw $$ or \\( left), every internal link resolves, the API pages list every public name.
Screenshots of the home page and chapter 04 are kept outside the tree (RESIZE_NEAREST_SCREENSHOTS, default /tmp)."""
import functools, http.server, importlib, os, shutil, subprocess, sys, threading
from pathlib import Path
from urllib.parse import urljoin, urlparse, unquote
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get('RESIZE_NEAREST_SCREENSHOTS', '/tmp/resize_nearest_docs_screenshots'))

def chromium()->str:
    "Path of Debian's chromium, installed with apt-get if it is missing (the test fails, never skips, if that is impossible)."
    for name in ('chromium', 'chromium-browser'):
        if shutil.which(name): return shutil.which(name)
    env = {**os.environ, 'DEBIAN_FRONTEND': 'noninteractive'}
    for cmd in (['apt-get', 'update', '-qq'], ['apt-get', 'install', '-y', '-qq', 'chromium']):
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode: pytest.fail(f'chromium is needed for the browser test and {" ".join(cmd)} failed: {r.stderr[-500:]}')
    return shutil.which('chromium')

@pytest.fixture(scope='module')
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp('site')
    r = subprocess.run([sys.executable, 'tools/build_docs.py', '--src', str(out / 'src'), '--out', str(out / 'html')], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    html = out / 'html'
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    handler = functools.partial(Quiet, directory=str(html))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield html, f'http://127.0.0.1:{server.server_address[1]}/'
    server.shutdown()

def pages(html):
    return sorted(p.relative_to(html).as_posix() for p in html.rglob('*.html') if not p.relative_to(html).parts[0].startswith('_')
                  and p.name not in ('genindex.html', 'search.html'))

def test_site_in_chromium(site):
    from playwright.sync_api import sync_playwright
    html, base = site
    names = pages(html)
    chapters = sorted(p.stem for p in (ROOT / 'nbs').glob('[0-9]*.ipynb'))
    assert set(f'{c}.html' for c in chapters) <= set(names) and 'index.html' in names
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1280, 'height': 900})
        errors = []
        page.on('console', lambda m: errors.append(m.text) if m.type == 'error' else None)
        page.on('pageerror', lambda e: errors.append(str(e)))
        # a request the browser aborted (net::ERR_ABORTED: the next navigation cancelled it) is not a
        # site error; a missing file still shows as its HTTP 404 below
        page.on('requestfailed', lambda r: errors.append(f'request failed: {r.url} ({r.failure})')
                if 'ERR_ABORTED' not in (r.failure or '') else None)
        page.on('response', lambda r: errors.append(f'HTTP {r.status}: {r.url}') if r.status >= 400 else None)
        for name in names:
            errors.clear()
            page.goto(base + name, wait_until='load')
            page.wait_for_function('() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)', timeout=20000)
            page.evaluate('() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : null')
            bad_imgs = page.evaluate('() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)')
            text = page.evaluate('() => document.querySelector("article, main, body").innerText')
            raw = [m for m in ('$$', '\\\\(', '\\\\[') if m in text]
            links = page.evaluate('() => [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href"))')
            dead = []
            for href in links:
                if not href or href.startswith(('#', 'http:', 'https:', 'mailto:', 'javascript:')): continue
                target = urlparse(urljoin(base + name, href)).path.lstrip('/')
                if not (html / unquote(target)).exists(): dead.append(href)
            if errors or bad_imgs or raw or dead:
                problems.append(f'{name}: console {errors[:3]}, images {bad_imgs[:3]}, raw math {raw}, dead links {dead[:3]}')
            if name in ('index.html', '04_gather_kernels.html'):
                page.screenshot(path=str(SHOTS / name.replace('.html', '.png')), full_page=False)
        browser.close()
    assert not problems, '\n'.join(problems)
    assert (SHOTS / 'index.png').stat().st_size > 10_000

def test_math_is_typeset_and_api_pages_list_every_public_name(site):
    html, _ = site
    assert 'class="math' in (html / '03_tile_graph.html').read_text()            # MathJax input, typeset in the browser test
    assert '_static/mathjax/es5/tex-chtml.js' in (html / '03_tile_graph.html').read_text()    # served by the site itself
    for page in html.rglob('*.html'):
        assert 'cdn.jsdelivr' not in page.read_text() and 'mathjax@' not in page.read_text(), page.name
    for page in (html / 'api').glob('resize_nearest*.html'):
        mod = importlib.import_module(page.stem)
        text = page.read_text()
        missing = [n for n in getattr(mod, '__all__', []) if not n.startswith('_') and n not in text]
        assert not missing, f'{page.name} lacks {missing}'
    assert len(list((html / 'api').glob('resize_nearest*.html'))) >= 15
