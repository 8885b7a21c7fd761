/// A self-contained HTML page: inline CSS and SVG, no script, and a content security policy that lets the
/// browser load nothing from anywhere.
package struct HTMLPage: Sendable {
    /// The document title.
    package var title: String
    /// The body's markup, appended to by the page builders.
    package var body = ""

    /// Creates an empty page.
    package init(title: String) {
        self.title = title
    }

    /// Appends markup to the body.
    package mutating func append(_ markup: String) {
        body += markup
    }

    /// The whole document.
    package var document: String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Markup.escape(title))</title>
        <style>\(Self.css)</style>
        </head>
        <body><main>
        \(body)
        </main></body>
        </html>

        """
    }

    /// A `<section>` with a heading.
    package static func section(_ id: String, title: String, content: String) -> String {
        "<section id=\"\(Markup.escape(id))\"><h2>\(Markup.escape(title))</h2>\(content)</section>\n"
    }

    /// A row of score cards.
    package static func cards(_ cards: [(name: String, value: String)]) -> String {
        "<div class=\"cards\">" + cards.map { card in
            "<div class=\"card\"><div class=\"value\">\(Markup.escape(card.value))</div><div class=\"name\">\(Markup.escape(card.name))</div></div>"
        }.joined() + "</div>"
    }

    /// A chart with a caption.
    package static func figure(_ svg: String, caption: String, classes: String = "") -> String {
        "<figure class=\"\(classes)\">\(svg)<figcaption>\(Markup.escape(caption))</figcaption></figure>"
    }

    /// A table; cells are markup, headers text. Header names starting with `#` are right-aligned numbers.
    package static func table(_ headers: [String], rows: [[String]], classes: String = "") -> String {
        var html = "<div class=\"table-wrap\"><table class=\"\(classes)\"><thead><tr>"
        for header in headers {
            let numeric = header.hasPrefix("#")
            html += "<th\(numeric ? " class=\"num\"" : "")>\(Markup.escape(numeric ? String(header.dropFirst()) : header))</th>"
        }
        html += "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>"
            for (index, cell) in row.enumerated() {
                let numeric = index < headers.count && headers[index].hasPrefix("#")
                html += "<td\(numeric ? " class=\"num\"" : "")>\(cell)</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// A definition list of names and markup values.
    package static func summary(_ entries: [(name: String, value: String)]) -> String {
        "<dl class=\"summary\">" + entries.map { "<dt>\(Markup.escape($0.name))</dt><dd>\($0.value)</dd>" }.joined() + "</dl>"
    }

    /// The style sheet.
    package static let css = """
        :root{color-scheme:light;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--accent:#0969da}
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:var(--ink);background:#fff}
        main{max-width:1180px;margin:0 auto;padding:20px 28px 48px}
        h1{font-size:22px;margin:0 0 2px}
        h2{font-size:18px;margin:30px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
        h3{font-size:15px;margin:22px 0 6px}
        .subtitle{color:var(--muted);margin:0 0 14px}
        .summary{display:grid;grid-template-columns:max-content 1fr;gap:3px 18px;margin:0}
        .summary dt{color:var(--muted)}
        .summary dd{margin:0;overflow-wrap:anywhere}
        .cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0 14px}
        .card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:130px}
        .card .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}
        .card .name{color:var(--muted);font-size:12px}
        .charts{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
        figure{margin:0;max-width:100%;overflow-x:auto}
        figcaption{color:var(--muted);font-size:12px;margin-top:4px;max-width:620px}
        .tall{max-height:660px;overflow-y:auto}
        svg{font-family:"DejaVu Sans",Verdana,sans-serif;font-size:12px;display:block}
        svg .axis-title,svg .tick,svg .value{fill:var(--muted)}
        svg .tick,svg .value{font-size:10px}
        svg .legend{font-size:11px}
        svg .grid{stroke:#e5e7eb;stroke-width:1}
        .table-wrap{overflow-x:auto}
        table{border-collapse:collapse;width:100%;font-size:13px}
        th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
        th{background:var(--panel);font-weight:600}
        .num{text-align:right;font-variant-numeric:tabular-nums}
        span.text{display:block;max-width:520px;overflow-wrap:anywhere}
        table.misclassified td{overflow-wrap:anywhere}
        table.misclassified span.text{min-width:16em}
        .tag{display:inline-block;padding:0 7px;border-radius:10px;margin:1px 2px;font-size:12px;background:#eef1f4}
        .tag.hit{background:#dafbe1}
        .tag.miss{background:#ffebe9;text-decoration:line-through}
        .tag.extra{background:#fff8c5}
        .wrong{color:#cf222e;font-weight:600}
        .right{color:#1a7f37}
        details summary{cursor:pointer;color:var(--accent)}
        pre{background:var(--panel);padding:8px 10px;overflow:auto;font-size:12px;max-height:320px}
        .note{color:var(--muted);font-size:12px}
        .legend-key{display:flex;gap:12px;font-size:12px;color:var(--muted);margin:4px 0}
        """
}
