/**
 * Runs inside the sandboxed output iframe (opaque origin, no cookies, no API access): receives
 * one trusted HTML or JavaScript output from the notebook page, shows it with its scripts
 * running, and reports its height so the page can size the frame.
 */
interface RenderMessage {
  type: 'render';
  mime: string;
  content: string;
}

function runScripts(root: ParentNode): void {
  for (const old of root.querySelectorAll('script')) {
    const script = document.createElement('script');
    for (const attr of old.attributes) script.setAttribute(attr.name, attr.value);
    script.textContent = old.textContent;
    old.replaceWith(script);
  }
}

function reportHeight(): void {
  parent.postMessage({ type: 'height', height: document.documentElement.scrollHeight }, '*');
}

window.addEventListener('message', (event) => {
  if (event.source !== parent) return;
  const data = event.data as RenderMessage;
  if (data?.type !== 'render') return;
  const root = document.getElementById('output') ?? document.body;
  if (data.mime === 'application/javascript') {
    const script = document.createElement('script');
    script.textContent = `(function(element){${data.content}\n})(document.getElementById('output'));`;
    root.append(script);
  } else {
    root.innerHTML = data.content;
    runScripts(root);
  }
  reportHeight();
});
new ResizeObserver(reportHeight).observe(document.documentElement);
parent.postMessage({ type: 'ready' }, '*');
