# The smallest Sphinx project that shows a vigil demo: see index.rst. Instead of the script tag in
# each page, html_js_files = [('https://your.host/vigil/embed.js', {'async': 'async'})] adds it to
# every page.
project = 'Failure detection notes'
html_theme = 'alabaster'
