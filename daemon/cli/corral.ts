// The `corral` executable.
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error('corral: unexpected failure:', err);
    process.exitCode = 1;
  },
);
