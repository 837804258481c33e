import { mount } from 'svelte';
import { invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import App from './App.svelte';
import { setTransport } from './lib/backend';
import { app } from './lib/app.svelte';
import './app.css';

setTransport({
  invoke: (command, args) => invoke(command, args),
  listen: async (event, handler) => listen(event, (e) => handler(e.payload as never)),
});

const target = document.getElementById('app');
if (target) {
  mount(App, { target });
  // Marks for the bench's cold-start note (`bench/src/startup.rs`).
  performance.mark('rxdesk:mounted');
  void app.start().then(() => performance.mark('rxdesk:status'));
}
