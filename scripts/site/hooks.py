"""MkDocs hooks for the documentation site (mkdocs.yml), run by `mkdocs build`.

The pages are written to be read in the repository too, where a few link to files beside docs/
(CONTRIBUTING.md, examples/) or to a folder (embed-snippets/), which a file browser lists. The site
holds only docs/ and lists no folders, so such a link would lead nowhere: here it becomes its text,
naming the file. The MkDocs project under embed-snippets/ is the source of another site, copied as
files but not made pages of this one. Python-Markdown's fenced code blocks must start at the
margin: one indented under a list item would pass its HTML through as HTML (a snippet's
<div data-vigil-demo> would become a live demo), so such a block is moved to the margin.

MkDocs 1.4 warns about links to pages that do not exist, but not about a `#fragment` that names no
heading of its page; after the build, every link between the site's pages is checked for that too,
and a missing anchor is a warning, which `mkdocs build --strict` turns into a failure.
"""

import html.parser
import logging
import os
import posixpath
import re
import urllib.parse

log = logging.getLogger("mkdocs.hooks.site")

# [text](target) where target climbs out of the page's folder; images excluded.
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")

# A fenced block indented by one to three spaces (under a list item), whole.
_INDENTED_FENCE = re.compile(r"^( {1,3})(```[^\n]*\n(?:.*\n)*?)\1```[ \t]*$", re.M)


def _to_margin(match):
    indent = match.group(1)
    lines = match.group(2).splitlines(keepends=True)
    return "".join(l[len(indent):] if l.startswith(indent) else l for l in lines[1:]).join(
        [lines[0], "```"]
    )


def on_files(files, config):
    for f in list(files.documentation_pages()):
        if f.src_path.replace(os.sep, "/").startswith("embed-snippets/"):
            files.remove(f)
    return files


def on_page_markdown(markdown, page, config, files):
    page_dir = os.path.dirname(page.file.src_path)
    docs_dir = config["docs_dir"]

    def leads_nowhere_on_the_site(match):
        target = match.group(2)
        if "://" in target or target.startswith(("#", "mailto:")):
            return match.group(0)
        resolved = os.path.normpath(os.path.join(page_dir, target.split("#")[0]))
        outside_docs = resolved.startswith("..")
        if not outside_docs and not os.path.isdir(os.path.join(docs_dir, resolved)):
            return match.group(0)
        return match.group(1)

    return _LINK.sub(leads_nowhere_on_the_site, _INDENTED_FENCE.sub(_to_margin, markdown))


class _Anchors(html.parser.HTMLParser):
    """The ids a page defines and the links it holds."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def _parse(path):
    parser = _Anchors()
    with open(path, encoding="utf-8") as f:
        parser.feed(f.read())
    return parser


def _page_of(source, path):
    """The built file a link's path leads to from the page `source` (both relative to the site)."""
    if not path:
        return source
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if path.endswith("/") or path == ".":
        joined = posixpath.join(joined, "index.html")
    return joined.removeprefix("./")


def on_post_build(config):
    site_dir = config["site_dir"]
    pages = {}
    for folder, _, names in os.walk(site_dir):
        for name in names:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                pages[os.path.relpath(path, site_dir).replace(os.sep, "/")] = _parse(path)

    for source, parsed in sorted(pages.items()):
        if source.startswith("embed-snippets/"):
            continue
        for href in parsed.hrefs:
            url = urllib.parse.urlsplit(href)
            if url.scheme or url.netloc or not url.fragment:
                continue
            target = _page_of(source, url.path)
            fragment = urllib.parse.unquote(url.fragment)
            if target not in pages:
                log.warning("%s links to %s, which is not a page of the site", source, href)
            elif fragment not in pages[target].ids:
                log.warning("%s links to %s, but %s has no anchor '%s'", source, href, target,
                            fragment)
