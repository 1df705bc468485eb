import '@ant-design/v5-patch-for-react-19';
// antd 5 ships no global reset: without it the browser's 8px body margin frames every page.
import 'antd/dist/reset.css';
// A visible ring on links under keyboard focus (antd removes it), and the visually-hidden class.
import './a11y.css';
import './tables.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import { i18nReady } from './i18n';

// The first language's words are a chunk of their own (src/i18n.ts): draw once they are here, never bare keys.
void i18nReady.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
