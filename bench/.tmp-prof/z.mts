import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
const cases = [
 {jsonrpc:'2.0',id:1,result:{}}, {jsonrpc:'2.0',id:1.5,result:{}}, {jsonrpc:'2.0',id:null,error:{code:1,message:'x'}}, {jsonrpc:'2.0',error:{code:1,message:'x'}},
 {jsonrpc:'2.0',id:1,error:{code:1.5,message:'x'}}, {jsonrpc:'2.0',method:'x'}, {jsonrpc:'2.0',method:'x',params:[]}, {jsonrpc:'2.0',method:'x',id:null},
 {jsonrpc:'2.0',id:1,result:[]}, {jsonrpc:'2.0',id:1,result:{},extra:1}, {jsonrpc:'2.0',id:1,method:'x',result:{}}, {jsonrpc:'2.0',id:'a',result:null},
];
for (const c of cases) { const r = JSONRPCMessageSchema.safeParse(c); console.log(JSON.stringify(c), r.success, r.success ? JSON.stringify(r.data) : ''); }
