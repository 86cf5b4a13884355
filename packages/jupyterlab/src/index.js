// The page's entry. Module federation's shared packages are not available synchronously, so the
// app itself lives in main.js, loaded once the share scope holds the core packages and the
// prebuilt (federated) extensions' containers have been initialised against it: an extension
// then gets JupyterLab's own copies of the singletons (tokens, widgets, React).
import './public-path.js';
import { loadFederatedExtensions } from './federated.js';

async function start() {
  await __webpack_init_sharing__('default');
  const federated = await loadFederatedExtensions(__webpack_share_scopes__.default);
  const { main } = await import('./main.js');
  await main(federated);
}

start().catch((error) => {
  console.error('JupyterLab failed to start', error);
});
