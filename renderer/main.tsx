import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { followTheme } from './lib/pageTheme';

followTheme();
createRoot(document.getElementById('root')!).render(<App />);
