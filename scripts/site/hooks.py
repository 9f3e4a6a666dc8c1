"""MkDocs hooks for the documentation site (mkdocs.yml), run by `mkdocs build`.

The pages are written to be read in the repository too, where a few link to files beside docs/
(CONTRIBUTING.md, examples/). The site holds only docs/, so such a link would lead nowhere: here
it becomes its text, naming the file. The MkDocs project under embed-snippets/ is the source of
another site, copied as files but not made pages of this one.
"""

import os
import re

# [text](target) where target climbs out of the page's folder; images excluded.
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def on_files(files, config):
    for f in list(files.documentation_pages()):
        if f.src_path.replace(os.sep, "/").startswith("embed-snippets/"):
            files.remove(f)
    return files


def on_page_markdown(markdown, page, config, files):
    page_dir = os.path.dirname(page.file.src_path)

    def outside_docs(match):
        target = match.group(2)
        if "://" in target or target.startswith(("#", "mailto:")):
            return match.group(0)
        resolved = os.path.normpath(os.path.join(page_dir, target.split("#")[0]))
        if not resolved.startswith(".."):
            return match.group(0)
        return match.group(1)

    return _LINK.sub(outside_docs, markdown)
