import { useState } from 'preact/hooks';
import { navigate } from '../router.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Address search: opens `/explorer/{address}`. */
export function SearchBox({ initial }: { initial: string }) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        const address = value.trim();
        if (!ADDRESS.test(address)) {
          setError('Enter a wallet address: 0x followed by 40 hex digits.');
          return;
        }
        setError(null);
        navigate(null, `/explorer/${address.toLowerCase()}${location.search}`);
      }}
    >
      <label for="address">Wallet address</label>
      <div class="row">
        <input
          id="address"
          value={value}
          onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
          placeholder="0x…"
          spellcheck={false}
          autocomplete="off"
        />
        <button type="submit">Show</button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
