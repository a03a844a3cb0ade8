import { createRoot } from 'react-dom/client';
import { App } from './app';

// The owner's console (docs/console.md): bundled by esbuild with React, served at /app by Gather.
createRoot(document.getElementById('root')!).render(<App />);
