// Runs first: chunks load from the static URL the server put in the page config, so one build
// serves any base URL (the page is rendered per request, the bundle is not).
const element = document.getElementById('jupyter-config-data');
const staticUrl = String((element ? JSON.parse(element.textContent || '{}') : {}).fullStaticUrl ?? '');
__webpack_public_path__ = staticUrl.endsWith('/') ? staticUrl : `${staticUrl}/`;
