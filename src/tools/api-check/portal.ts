/**
 * The static developer portal: one self-contained HTML page per archived version of the public
 * document (no script, no external asset) and an index linking them, newest first.
 */
type Doc = Record<string, any>;

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const json = (v: unknown) => `<pre>${esc(JSON.stringify(v, null, 2))}</pre>`;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h2{border-top:1px solid #ddd;padding-top:1rem}code,pre{background:#f4f4f4;border-radius:4px}pre{padding:.5rem;overflow:auto}
.m{display:inline-block;min-width:4.5rem;font-weight:700}.dep{color:#a00}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>\n`;
}

export function versionPage(doc: Doc): string {
  const ops: string[] = [];
  for (const [path, item] of Object.entries<Doc>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Doc>(item)) {
      const params = (op.parameters ?? []) as Doc[];
      ops.push(`<h2 id="${esc(op.operationId)}"><span class="m">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${op.deprecated ? ' <span class="dep">deprecated</span>' : ''}</h2>
<p><strong>${esc(op.summary)}</strong></p><p>${esc(op.description)}</p>
${(op.security ?? []).length > 0 ? '<p>Requires a bearer user token.</p>' : '<p>No authentication.</p>'}
${params.length ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th><th>description</th></tr>${params.map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${esc(JSON.stringify(p.schema))}</code></td><td>${esc(p.description)}</td></tr>`).join('')}</table>` : ''}
${
  op.requestBody
    ? `<h3>Request body</h3>${Object.entries<Doc>(op.requestBody.content)
        .map(([type, c]) => `<p><code>${esc(type)}</code></p>${json(c.schema)}`)
        .join('')}`
    : ''
}
<h3>Responses</h3>${Object.entries<Doc>(op.responses ?? {})
        .map(
          ([status, r]) =>
            `<p><strong>${esc(status)}</strong> ${esc(r.description)}</p>${Object.entries<Doc>(r.content ?? {})
              .map(([type, c]) => `<p><code>${esc(type)}</code></p>${json(c.schema)}`)
              .join('')}`,
        )
        .join('')}`);
    }
  }
  return page(
    `${doc.info?.title} ${doc.info?.version}`,
    `<p><a href="index.html">All versions</a></p><h1>${esc(doc.info?.title)} <small>${esc(doc.info?.version)}</small></h1>
<p>${esc(doc.info?.description)}</p><h3>Schemas</h3>${json(doc.components?.schemas ?? {})}${ops.join('\n')}`,
  );
}

export function indexPage(versions: readonly string[]): string {
  return page(
    'Telemetry Hub API versions',
    `<h1>Telemetry Hub API</h1><ul>${versions.map((v) => `<li><a href="${esc(v)}.html">${esc(v)}</a></li>`).join('')}</ul>`,
  );
}
