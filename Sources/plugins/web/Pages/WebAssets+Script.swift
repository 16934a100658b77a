extension WebAssets {
    /// The one script, an ES module: the WebSocket, the pages, the diff viewer.
    static let script = #"""
        // pi-relayd's dashboard. Model output arrives as the formatter's html dialect; it is parsed
        // inert (a <template>) and rebuilt keeping only that dialect's tags and attributes, so
        // nothing in it runs or loads. Everything else is set as text.
        const $ = (selector, root = document) => root.querySelector(selector);
        const main = $('#main');
        const allowed = { B: [], STRONG: [], I: [], EM: [], U: [], INS: [], S: [], STRIKE: [], DEL: [], CODE: ['class'], PRE: [],
          A: ['href'], BLOCKQUOTE: [], SPAN: ['class'], BR: [], 'TG-SPOILER': [] };
        let sessions = [];
        let unread = 0;
        // A dropped socket is most often a restarted plugin, back within milliseconds: try again
        // soon, then back off.
        let retry = 100;
        let socket = null;
        const route = location.pathname.startsWith('/s/') ? { session: decodeURIComponent(location.pathname.slice(3)) }
          : location.pathname === '/status' ? { status: true } : location.pathname === '/approvals' ? { approvals: true } : { list: true };

        export function safe(html) {
          const template = document.createElement('template');
          template.innerHTML = html;
          return rebuild(template.content);
        }

        function rebuild(node) {
          const out = document.createDocumentFragment();
          for (const child of node.childNodes) {
            if (child.nodeType === Node.TEXT_NODE) { out.append(child.textContent); continue; }
            if (child.nodeType !== Node.ELEMENT_NODE) continue;
            const names = allowed[child.tagName];
            if (!names) { out.append(rebuild(child)); continue; }
            const element = document.createElement(child.tagName.toLowerCase());
            for (const name of names) {
              const value = child.getAttribute(name);
              if (value === null) continue;
              if (name === 'href' && !/^https?:\/\//i.test(value)) continue;
              element.setAttribute(name, value);
            }
            if (element.tagName === 'A') { element.rel = 'noopener noreferrer'; element.target = '_blank'; }
            element.append(rebuild(child));
            out.append(element);
          }
          return out;
        }

        function el(tag, props = {}, ...children) {
          const element = document.createElement(tag);
          for (const [key, value] of Object.entries(props)) {
            if (key === 'dataset') Object.assign(element.dataset, value);
            else if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
            else element[key] = value;
          }
          element.append(...children.filter((child) => child !== null && child !== undefined));
          return element;
        }

        /// The answer's JSON, with `ok` false when it failed (the reason shown in the feed).
        /// `retries`: how often a request that got no answer at all (the plugin restarting, a
        /// connection it had closed) is sent again, for one the plugin takes once (an id'd message).
        async function post(path, body, retries = 0) {
          for (let attempt = 0; ; attempt++) {
            try {
              const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify(body), credentials: 'same-origin' });
              const data = await response.json().catch(() => ({}));
              data.ok = response.ok && !data.error;
              if (data.error) note('⚠️ ' + data.error);
              else if (!response.ok) note(`⚠️ not sent: ${response.status} ${response.statusText}${response.status === 413 ? ' (too large)' : ''}`);
              else if (data.text && !data.questionClosed) note(data.text);
              return data;
            } catch (error) {
              if (attempt < retries) {
                await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
                continue;
              }
              note('⚠️ not sent: ' + error);
              return { ok: false };
            }
          }
        }

        function note(text) {
          const feed = $('#feed');
          if (feed) feed.append(el('div', { className: 'item reply note' }, text));
        }

        function connect() {
          socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
          socket.onopen = () => {
            retry = 100;
            $('#link').textContent = 'live';
            if (route.session) {
              // The feed stays: the backlog that follows updates the posts already shown (a
              // question closed meanwhile) and adds the rest, and the page's own notes ("not
              // sent", a command's reply) stay where they were.
              const live = $('#live');
              if (live) live.replaceChildren();
              socket.send(JSON.stringify({ type: 'watch', session: route.session }));
            }
          };
          socket.onmessage = (event) => receive(JSON.parse(event.data));
          socket.onclose = (event) => {
            // Signed out (here, elsewhere, or the user revoked): the page shows how to sign in.
            if (event.code === 1008) { location.reload(); return; }
            // A socket refused at its upgrade (signed out while away) closes as 1006 too: ask.
            fetch('/api/me', { credentials: 'same-origin' }).then((response) => { if (response.status === 401) location.reload(); }, () => {});
            $('#link').textContent = 'reconnecting…';
            setTimeout(connect, retry);
            retry = Math.min(retry * 2, 5000);
          };
        }

        function receive(message) {
          if (message.type === 'sessions') { sessions = message.sessions || []; drawSessions(); return; }
          if (message.session !== route.session) return;
          if (message.type === 'item') addItem(message.item);
          else if (message.type === 'live') showLive(message.runId, message.html);
          else if (message.type === 'closed') closeQuestion(message.questionId, message.text);
          else if (message.type === 'changed') loadDiff();
        }

        function ago(iso) {
          if (!iso) return '';
          const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
          return seconds < 60 ? `${seconds} s ago` : seconds < 3600 ? `${Math.round(seconds / 60)} min ago` : `${Math.round(seconds / 3600)} h ago`;
        }

        function running(iso) {
          const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
          return `running ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
        }

        // Questions and approval gates wait apart: a gate holds a tool call, a question the run.
        function waiting(s) {
          const gates = s.approvals || 0, questions = (s.questions || 0) - gates;
          return [questions > 0 ? el('span', { className: 'waiting questions' }, ` · ${questions} ${questions === 1 ? 'question' : 'questions'} waiting`) : null,
            gates > 0 ? el('span', { className: 'waiting approvals' }, ` · ${gates} ${gates === 1 ? 'approval' : 'approvals'} waiting`) : null];
        }

        setInterval(() => { for (const cell of document.querySelectorAll('.elapsed')) cell.textContent = running(cell.dataset.since); }, 1000);

        function drawSessions() {
          if (route.session) { drawHeader(); return; }
          if (!route.list) return;
          const rows = sessions.map((s) => el('tr', { dataset: { session: s.id } },
            el('td', {}, el('a', { href: '/s/' + encodeURIComponent(s.id) }, `${s.marker || ''} ${s.name}`)),
            el('td', {}, s.kind || ''),
            el('td', { className: 'state-' + s.state }, s.state, ...waiting(s)),
            el('td', { className: 'model' }, s.model || ''),
            el('td', { className: 'cwd' }, s.cwd || '', s.branch ? el('div', { className: 'branch' }, `⎇ ${s.branch}${s.dirty ? ` · ${s.dirty} changed` : ''}`) : null),
            el('td', {}, ago(s.lastActivity), s.runStartedAt && s.state !== 'idle' ? el('div', { className: 'elapsed', dataset: { since: s.runStartedAt } }, running(s.runStartedAt)) : null)));
          if (sessions.length > 0 && performance.getEntriesByName('sessions-drawn').length === 0) {
            // After the frame that shows the rows has been painted.
            requestAnimationFrame(() => setTimeout(() => performance.mark('sessions-drawn')));
          }
          const form = $('#new-session') || newSessionForm();
          main.replaceChildren(form, el('h1', {}, 'Sessions'), sessions.length === 0 ? el('p', {}, 'No sessions yet: pi-relayd new DIR, or /new DIR in a chat.') :
            el('table', { id: 'sessions' }, el('thead', {}, el('tr', {}, ...['Session', 'Kind', 'State', 'Model', 'Folder', 'Last activity']
              .map((name) => el('th', { className: name === 'Folder' ? 'cwd' : name === 'Model' ? 'model' : '' }, name)))), el('tbody', {}, ...rows)));
        }

        function newSessionForm() {
          const folder = el('input', { id: 'new-cwd', placeholder: '/home/you/src/project' });
          const name = el('input', { id: 'new-name', placeholder: 'name (optional)' });
          return el('form', { id: 'new-session', className: 'controls', onsubmit: async (event) => {
            event.preventDefault();
            const answer = await fetch('/api/new', { method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin',
              body: JSON.stringify({ cwd: folder.value, name: name.value }) }).then((r) => r.json()).catch(() => ({}));
            const note = $('#new-note') || el('p', { id: 'new-note', className: 'note' });
            note.textContent = answer.error || answer.text || '';
            event.target.after(note);
          } }, folder, name, el('button', { type: 'submit' }, 'New session'));
        }

        function drawHeader() {
          const s = sessions.find((each) => each.id === route.session);
          const header = $('#session-head');
          if (!header) return;
          header.replaceChildren(el('h1', {}, s ? `${s.marker || ''} ${s.name}` : route.session),
            el('p', { className: 'note' }, s ? `${s.state} · ${s.model || 'model unknown'} · ${s.cwd}${s.branch ? ` · ⎇ ${s.branch}` : ''}${s.dirty ? ` (${s.dirty} changed)` : ''}` : ''));
        }

        function drawSession() {
          const text = el('textarea', { id: 'prompt', placeholder: 'Message pi…' });
          const picker = el('input', { id: 'image', type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp', multiple: true });
          // One send at a time, and a message keeps its id until it was taken: a second click, or
          // sending again after an answer that never came (the plugin restarted), is the same
          // message, which the plugin's inbox takes once.
          let sending = false;
          let unsent = null;
          const send = (mode) => async () => {
            if (sending) return;
            sending = true;
            try {
              const value = text.value;
              const images = mode === 'send' ? await Promise.all([...picker.files].map(readImage)) : [];
              if (!value.trim() && images.length === 0) return;
              const key = JSON.stringify([mode, value, images.map((image) => [image.name, image.data.length])]);
              if (unsent?.key !== key) unsent = { key, id: crypto.randomUUID() };
              // Cleared only once it was taken: a refused prompt stays in the box to send again.
              // Only a send is sent again on no answer: it has an id the plugin takes once; a
              // steer or follow-up goes to pi-relayd as a command, which has none.
              const answer = await post(`/api/sessions/${encodeURIComponent(route.session)}/prompt`, { text: value, mode, id: unsent.id, images },
                mode === 'send' ? 3 : 0);
              if (!answer.ok) return;
              unsent = null;
              if (text.value === value) { text.value = ''; picker.value = ''; }
            } finally {
              sending = false;
            }
          };
          const command = (name, args = {}) => () => post(`/api/sessions/${encodeURIComponent(route.session)}/command`, { name, args });
          const model = el('input', { id: 'model', placeholder: 'provider/model' });
          const rename = el('input', { id: 'rename', placeholder: 'new name' });
          const thinking = el('select', { id: 'thinking', onchange: () => thinking.value && command('thinking', { level: thinking.value })() },
            el('option', { value: '' }, 'Thinking…'), ...['off', 'minimal', 'low', 'medium', 'high', 'xhigh'].map((level) => el('option', { value: level }, level)));
          main.replaceChildren(
            el('div', { id: 'session-head' }),
            el('div', { className: 'controls' },
              el('button', { id: 'stop', onclick: command('stop') }, 'Stop'),
              el('button', { id: 'compact', onclick: command('compact') }, 'Compact'),
              model, el('button', { onclick: () => model.value && command('model', { model: model.value })() }, 'Switch model'),
              thinking, el('button', { id: 'reset', onclick: () => confirm('Start a new conversation? pi forgets this one.') && command('reset')() }, 'New conversation'),
              rename, el('button', { onclick: () => rename.value && command('rename', { name: rename.value })() }, 'Rename')),
            el('details', { id: 'changes', ontoggle: (event) => { if (event.target.open) loadDiff(); } },
              el('summary', {}, 'Changes'),
              el('div', { className: 'controls' },
                el('button', { id: 'diff-head', onclick: () => { diff.since = 'head'; loadDiff(); } }, 'Against HEAD'),
                el('button', { id: 'diff-run', onclick: () => { diff.since = 'run'; loadDiff(); } }, 'This run'),
                el('button', { id: 'diff-side', onclick: () => { diff.side = !diff.side; loadDiff(); } }, 'Unified / side by side')),
              el('div', { id: 'diff' })),
            el('div', { id: 'feed' }), el('div', { id: 'live' }),
            el('form', { id: 'composer', onsubmit: (event) => event.preventDefault() }, text,
              el('div', { className: 'controls' },
                el('button', { id: 'send', type: 'button', onclick: send('send') }, 'Send'),
                el('button', { id: 'steer', type: 'button', onclick: send('steer') }, 'Steer'),
                el('button', { id: 'followup', type: 'button', onclick: send('followup') }, 'Follow up'), picker)));
          text.addEventListener('keydown', (event) => { if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) send('send')(); });
          drawHeader();
        }

        function readImage(file) {
          return new Promise((resolve, reject) => {
            const reader = new FileReader();
            reader.onload = () => resolve({ name: file.name, type: file.type, data: String(reader.result).split(',')[1] || '' });
            reader.onerror = () => reject(reader.error);
            reader.readAsDataURL(file);
          });
        }

        function addItem(item) {
          const feed = $('#feed');
          if (!feed) return;
          if (item.id && feed.querySelector(`[data-id="${CSS.escape(item.id)}"]`)) {
            if (item.question && item.closed) closeQuestion(item.question.id, item.closed);
            return;
          }
          if (item.runId && item.kind === 'final') $(`#live [data-run="${CSS.escape(item.runId)}"]`)?.remove();
          const body = item.html !== undefined ? safe(item.html) : document.createTextNode(item.kind === 'echo' ? '▶ ' + item.text : item.text || '');
          const box = el('div', { className: `item ${item.kind}`, dataset: { id: item.id || '' } }, body);
          if (item.question) box.append(questionCard(item.question, item.closed));
          if (item.actions) box.append(actionRow(item.actions));
          for (const file of item.files || []) box.append(el('div', {}, file.url ? el('a', { href: file.url, download: file.name }, '⬇ ' + file.name) : file.name));
          feed.append(box);
          if (document.hidden) {
            unread += 1;
            document.title = `(${unread}) pi-relayd`;
            if (item.question && window.Notification && Notification.permission === 'granted') new Notification('pi-relayd', { body: item.question.title });
          }
          box.scrollIntoView({ block: 'end' });
        }

        function actionRow(rows) {
          const box = el('div', { className: 'actions' });
          for (const row of rows) {
            box.append(el('div', {}, ...row.map((action) => el('button', { className: action.style,
              onclick: () => post(`/api/sessions/${encodeURIComponent(route.session)}/command`, { name: 'action', args: { id: action.id } }) }, action.label))));
          }
          return box;
        }

        function questionCard(question, closed) {
          const answer = (body) => () => post(`/api/sessions/${encodeURIComponent(route.session)}/answer`, { questionId: question.id, ...body });
          const card = el('div', { className: 'question', dataset: { question: question.id } },
            el('strong', {}, question.title), question.message ? el('p', {}, question.message) : null);
          const controls = el('div', { className: 'controls' });
          if (question.method === 'select') for (const option of question.options || []) controls.append(el('button', { onclick: answer({ value: option }) }, option));
          else if (question.method === 'confirm') controls.append(el('button', { className: 'yes', onclick: answer({ confirmed: true }) }, 'Yes'), el('button', { className: 'no', onclick: answer({ confirmed: false }) }, 'No'));
          else {
            const input = el(question.method === 'editor' ? 'textarea' : 'input', { placeholder: question.placeholder || '' });
            controls.append(input, el('button', { onclick: () => answer({ value: input.value })() }, 'Answer'));
          }
          controls.append(el('button', { className: 'cancel', onclick: answer({ cancelled: true }) }, 'Cancel'));
          card.append(controls);
          if (closed) markClosed(card, closed);
          return card;
        }

        function markClosed(card, text) {
          card.classList.add('closed');
          card.querySelector('.controls')?.remove();
          card.append(el('p', { className: 'closed-note' }, text));
        }

        function closeQuestion(id, text) {
          const card = $(`[data-question="${CSS.escape(id)}"]`);
          if (card && !card.classList.contains('closed')) markClosed(card, text);
        }

        // A run's view grows at its end: the nodes it starts with are most often the ones shown
        // already, and those stay as they are. Where the first one differs, a text that goes on
        // from the one shown (prose, the most of an answer) gets only its new end; the nodes after
        // are rebuilt. So the browser handles what changed, not the whole answer ten times a
        // second. `box.blocks` holds, for each top-level node of the view shown, its markup as
        // received and how many nodes its rebuilt form added to the box (a text node: one).
        export function showLive(run, html) {
          const live = $('#live');
          if (!live) return;
          let box = live.querySelector(`[data-run="${CSS.escape(run)}"]`);
          if (!box) { box = el('div', { className: 'live', dataset: { run } }); box.blocks = []; live.append(box); }
          const template = document.createElement('template');
          template.innerHTML = html;
          const incoming = [...template.content.childNodes];
          const sources = incoming.map((node) => node.nodeType === Node.ELEMENT_NODE ? node.outerHTML
            : node.nodeType === Node.TEXT_NODE ? '\u0000' + node.data : '');
          let same = 0, kept = 0;
          while (same < box.blocks.length && same < incoming.length && box.blocks[same].source === sources[same]) {
            kept += box.blocks[same].count;
            same += 1;
          }
          const shown = box.blocks[same];
          if (shown && same < incoming.length && shown.source.startsWith('\u0000') && sources[same].startsWith(shown.source)) {
            box.childNodes[kept].appendData(sources[same].slice(shown.source.length));
            shown.source = sources[same];
            kept += 1;
            same += 1;
          }
          while (box.childNodes.length > kept) box.lastChild.remove();
          box.blocks.length = same;
          for (let index = same; index < incoming.length; index += 1) {
            // Read where it was parsed, never moved: a node adopted into this document (into a
            // fragment even) would start loading what it names, an <img>'s src, before the rebuild.
            const part = rebuild({ childNodes: [incoming[index]] });
            box.blocks.push({ source: sources[index], count: part.childNodes.length });
            box.append(part);
          }
          // make bench reads when each text reached the page (wall clock, as the stub pi logs it).
          if (Array.isArray(window.benchLive)) window.benchLive.push([performance.timeOrigin + performance.now(), box.textContent]);
        }

        const diff = { since: 'head', side: false };

        async function loadDiff() {
          const box = $('#diff');
          if (!box || !$('#changes').open) return;
          const response = await fetch(`/api/sessions/${encodeURIComponent(route.session)}/diff${diff.since === 'run' ? '?since=run' : ''}`,
            { credentials: 'same-origin' });
          const data = await response.json().catch(() => ({}));
          if (data.error) { box.replaceChildren(el('p', { className: 'note' }, data.error)); return; }
          const files = data.files || [];
          box.replaceChildren(
            el('p', { className: 'note' }, `${files.length} file(s) changed ${diff.since === 'run' ? `since ${data.since ? new Date(data.since).toLocaleTimeString() : 'the run started'}` : 'since HEAD'}${data.branch ? ' on ' + data.branch : ''}`),
            el('ul', { className: 'filelist' }, ...files.map((file) => el('li', {}, file.path,
              el('span', { className: 'add' }, ` +${file.added}`), el('span', { className: 'del' }, ` −${file.removed}`), file.binary ? ' (binary)' : ''))),
            ...files.map(drawFile));
          if (data.truncated) box.append(el('p', { className: 'note' }, 'Cut: more changes than a page shows.'));
        }

        function drawFile(file) {
          const box = el('details', { open: true, className: 'file', dataset: { path: file.path } },
            el('summary', {}, `${file.status} ${file.oldPath ? file.oldPath + ' → ' : ''}${file.path}  +${file.added} −${file.removed}`));
          if (file.binary) box.append(el('p', { className: 'note' }, 'Binary file'));
          for (const hunk of file.hunks || []) {
            box.append(el('details', { open: true, className: 'hunk' }, el('summary', {}, hunk.header), diff.side ? sideBySide(hunk.lines) : unified(hunk.lines)));
          }
          if (file.truncated) box.append(el('p', { className: 'note' }, 'Cut: this file has more changed lines than a page shows.'));
          return box;
        }

        function unified(lines) {
          return el('pre', { className: 'diff' }, ...lines.map((line) => el('div', { className: line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'ctx' }, line)));
        }

        function sideBySide(lines) {
          const rows = [];
          let removed = [];
          let added = [];
          const flush = () => {
            for (let i = 0; i < Math.max(removed.length, added.length); i++) rows.push([removed[i] ?? null, added[i] ?? null]);
            removed = [];
            added = [];
          };
          for (const line of lines) {
            if (line[0] === '-') removed.push(line.slice(1));
            else if (line[0] === '+') added.push(line.slice(1));
            else { flush(); rows.push([line.slice(1), line.slice(1), true]); }
          }
          flush();
          return el('table', { className: 'side' }, el('tbody', {}, ...rows.map(([left, right, same]) => el('tr', {},
            el('td', { className: left === null ? 'empty' : same ? 'ctx' : 'del' }, left ?? ''),
            el('td', { className: right === null ? 'empty' : same ? 'ctx' : 'add' }, right ?? '')))));
        }

        async function readJSON(path) {
          const response = await fetch(path, { credentials: 'same-origin' });
          return response.json().catch(() => ({}));
        }

        function table(id, headings, rows) {
          return el('table', { id }, el('thead', {}, el('tr', {}, ...headings.map((name) => el('th', {}, name)))),
            el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((cell) => el('td', {}, cell))))));
        }

        async function drawStatus() {
          main.replaceChildren(el('h1', {}, 'Status'), el('p', {}, 'Loading…'));
          const data = await readJSON('/api/status');
          if (data.error) { main.replaceChildren(el('h1', {}, 'Status'), el('p', {}, data.error)); return; }
          const daemon = data.status || {};
          const plugins = Array.isArray(daemon.plugins) ? daemon.plugins : [];
          const minutes = Math.round((daemon.uptimeSeconds || 0) / 60);
          main.replaceChildren(el('h1', {}, 'Status'),
            el('p', { id: 'health' }, `pi-relayd ${daemon.version || ''}, pid ${daemon.pid || '?'}, up ${minutes} min, ${(daemon.sessions || []).length} session(s)`),
            ...(daemon.problems || []).map((problem) => el('p', { className: 'waiting' }, '⚠️ ' + problem)),
            ...(daemon.notes || []).map((note) => el('p', { className: 'note' }, note)),
            daemon.metrics ? el('p', {}, el('a', { href: daemon.metrics }, 'Metrics (Prometheus)')) : el('p', { className: 'note' }, 'Metrics are off (metrics.listen in config.yaml).'),
            el('h2', {}, 'Plugins'),
            table('plugins', ['Plugin', 'State', 'Restarts', 'Log tail'], plugins.map((plugin) => [
              plugin.name || '', `${plugin.state || ''}${plugin.reason ? ': ' + plugin.reason : ''}`, String(plugin.restarts ?? 0),
              el('pre', { className: 'log' }, (plugin.lastStderr || []).join('\n'))])),
            el('p', {}, el('a', { href: '/approvals' }, 'Approvals log')));
        }

        async function drawApprovals() {
          const data = await readJSON('/api/approvals');
          const entries = Array.isArray(data) ? data : data.approvals || data.entries || [];
          main.replaceChildren(el('h1', {}, 'Approvals'),
            entries.length === 0 ? el('p', {}, data.error || 'No gated tool call yet.') :
              table('approvals', ['Time', 'Session', 'Tool', 'Call', 'Decision', 'By'], entries.slice().reverse().map((entry) => [
                entry.time || '', entry.sessionName || entry.session || '', entry.tool || '', el('code', {}, entry.args || ''), entry.decision || '', entry.by || ''])));
        }

        document.addEventListener('visibilitychange', () => { if (!document.hidden) { unread = 0; document.title = 'pi-relayd'; } });
        const notify = $('#notify');
        if (window.Notification && Notification.permission === 'default') {
          notify.hidden = false;
          notify.addEventListener('click', () => Notification.requestPermission().then(() => { notify.hidden = true; }));
        }
        if (route.session) drawSession();
        else if (route.status) drawStatus();
        else if (route.approvals) drawApprovals();
        else drawSessions();
        connect();
        """#
}
